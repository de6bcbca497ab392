-- The billing database at the world's frozen time.
CREATE TABLE invoices (
  id INTEGER PRIMARY KEY,
  status VARCHAR(16) NOT NULL,
  amount_cents INTEGER NOT NULL
);
INSERT INTO invoices (id, status, amount_cents) VALUES
  (1, 'PAID', 1200),
  (2, 'FAILED', 3400),
  (3, 'PENDING', 560);
