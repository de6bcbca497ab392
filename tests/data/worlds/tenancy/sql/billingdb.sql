CREATE TABLE blocking_sessions (blocked_pid INTEGER, blocked_application VARCHAR(40),
  blocked_query VARCHAR(200), wait_seconds INTEGER, blocking_pid INTEGER,
  blocking_application VARCHAR(40), blocking_state VARCHAR(24), blocking_xact_age_s INTEGER,
  blocking_query VARCHAR(200));
CREATE TABLE activity (pid INTEGER PRIMARY KEY, application_name VARCHAR(40),
  state VARCHAR(24), wait_event_type VARCHAR(16), xact_age_s INTEGER, query VARCHAR(200));
INSERT INTO activity VALUES (7301, 'billing-batch', 'active', 'IO', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8100, 'invoice-api', 'active', 'Lock', 20, 'UPDATE invoices SET status = ''paid'' WHERE id = 581200');
INSERT INTO blocking_sessions VALUES (8100, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581200', 20, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8101, 'invoice-api', 'active', 'Lock', 57, 'UPDATE invoices SET status = ''paid'' WHERE id = 581217');
INSERT INTO blocking_sessions VALUES (8101, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581217', 57, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8102, 'invoice-api', 'active', 'Lock', 94, 'UPDATE invoices SET status = ''paid'' WHERE id = 581234');
INSERT INTO blocking_sessions VALUES (8102, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581234', 94, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8103, 'invoice-api', 'active', 'Lock', 131, 'UPDATE invoices SET status = ''paid'' WHERE id = 581251');
INSERT INTO blocking_sessions VALUES (8103, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581251', 131, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8104, 'invoice-api', 'active', 'Lock', 168, 'UPDATE invoices SET status = ''paid'' WHERE id = 581268');
INSERT INTO blocking_sessions VALUES (8104, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581268', 168, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8105, 'invoice-api', 'active', 'Lock', 205, 'UPDATE invoices SET status = ''paid'' WHERE id = 581285');
INSERT INTO blocking_sessions VALUES (8105, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581285', 205, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8106, 'invoice-api', 'active', 'Lock', 242, 'UPDATE invoices SET status = ''paid'' WHERE id = 581302');
INSERT INTO blocking_sessions VALUES (8106, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581302', 242, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8107, 'invoice-api', 'active', 'Lock', 279, 'UPDATE invoices SET status = ''paid'' WHERE id = 581319');
INSERT INTO blocking_sessions VALUES (8107, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581319', 279, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8108, 'invoice-api', 'active', 'Lock', 26, 'UPDATE invoices SET status = ''paid'' WHERE id = 581336');
INSERT INTO blocking_sessions VALUES (8108, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581336', 26, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8109, 'invoice-api', 'active', 'Lock', 63, 'UPDATE invoices SET status = ''paid'' WHERE id = 581353');
INSERT INTO blocking_sessions VALUES (8109, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581353', 63, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8110, 'invoice-api', 'active', 'Lock', 100, 'UPDATE invoices SET status = ''paid'' WHERE id = 581370');
INSERT INTO blocking_sessions VALUES (8110, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581370', 100, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8111, 'invoice-api', 'active', 'Lock', 137, 'UPDATE invoices SET status = ''paid'' WHERE id = 581387');
INSERT INTO blocking_sessions VALUES (8111, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581387', 137, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8112, 'invoice-api', 'active', 'Lock', 174, 'UPDATE invoices SET status = ''paid'' WHERE id = 581404');
INSERT INTO blocking_sessions VALUES (8112, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581404', 174, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (8113, 'invoice-api', 'active', 'Lock', 211, 'UPDATE invoices SET status = ''paid'' WHERE id = 581421');
INSERT INTO blocking_sessions VALUES (8113, 'invoice-api', 'UPDATE invoices SET status = ''paid'' WHERE id = 581421', 211, 7301, 'billing-batch', 'active', 2460, 'UPDATE invoices SET total_cents = r.total FROM recompute r WHERE invoices.id = r.id');
INSERT INTO activity VALUES (9000, 'reporting', 'idle', 'Client', 0, 'SELECT 1');
INSERT INTO activity VALUES (9001, 'reporting', 'idle', 'Client', 0, 'SELECT 1');
INSERT INTO activity VALUES (9002, 'reporting', 'idle', 'Client', 0, 'SELECT 1');
INSERT INTO activity VALUES (9003, 'reporting', 'idle', 'Client', 0, 'SELECT 1');
