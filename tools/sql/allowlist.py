"""The functions a read-only statement may call, per dialect, and the catalogs it may never read.

Anything not listed here is refused: the list names what is known to be free of side effects
(no SQL executed from text, no connection opened, no file touched, no backend signalled, no lock
taken, no state changed, no sleep). Functions that only burn CPU or memory stay allowed; the
statement timeout and the result-size bounds of the client limit those.
"""

from __future__ import annotations

from tools.sql.lexical import Dialect

# Functions sqlglot recognises and turns into typed expression classes, named by class. A class
# stands for one documented function (or operator syntax such as `x::int`, `a -> 'k'`, CASE), so
# it means the same thing in every dialect that produces it; none of these write, wait or reach
# outside the statement.
TYPED_FUNCTIONS = frozenset({
    # Aggregates and window functions: computed over the rows the statement already reads.
    "Count", "Sum", "Avg", "Min", "Max", "Stddev", "StddevPop", "StddevSamp", "Variance",
    "VariancePop", "LogicalAnd", "LogicalOr", "ArrayAgg", "GroupConcat", "JSONArrayAgg",
    "JSONObjectAgg", "JSONBObjectAgg", "PercentileCont", "PercentileDisc", "Mode", "Corr",
    "CovarPop", "CovarSamp", "RegrSlope", "BitwiseAndAgg", "BitwiseOrAgg", "BitwiseXorAgg",
    "ArrayUniqueAgg", "CountIf", "Median", "RowNumber", "Rank", "DenseRank", "PercentRank",
    "CumeDist", "Ntile", "Lag", "Lead", "FirstValue", "LastValue", "NthValue",
    # Strings: pure functions of their arguments (repeat/space/pad can be large; bounded elsewhere).
    "Length", "BitLength", "Lower", "Upper", "Initcap", "Trim", "Pad", "Substring",
    "SubstringIndex", "Left", "Right", "Replace", "Reverse", "Repeat", "SplitPart", "StrPosition",
    "Concat", "ConcatWs", "Format", "NumberToStr", "MD5", "SHA", "SHA2", "SHA2Digest", "Encode",
    "Decode", "Translate", "RegexpReplace", "RegexpSubstr", "RegexpInstr", "RegexpLike",
    "RegexpILike", "StartsWith", "Hex", "Unhex", "Ascii", "Chr", "Elt", "Space", "Soundex",
    "ToBase64", "FromBase64", "StringToArray", "ArrayToString", "Collate",
    # Maths.
    "Abs", "Ceil", "Floor", "Round", "Trunc", "Sign", "Sqrt", "Cbrt", "Pow", "Exp", "Ln", "Log",
    "Greatest", "Least", "WidthBucket", "Degrees", "Radians", "Sin", "Cos", "Tan", "Rand",
    "SafeDivide",
    # Dates and times: read the clock or compute on values.
    "CurrentTimestamp", "CurrentDate", "CurrentTime", "Localtime", "Localtimestamp",
    "UtcTimestamp", "UtcTime", "UtcDate", "TimestampTrunc", "DateTrunc", "Extract",
    "MakeInterval", "TimestampFromParts", "DateFromParts", "TimeFromParts", "TimeToStr",
    "StrToDate", "StrToTime", "UnixToTime", "TimeToUnix", "StrToUnix", "ToNumber",
    "JustifyInterval", "JustifyDays", "JustifyHours", "DateBin", "TsOrDsToDate", "Time", "Year",
    "Month", "Day", "DayOfMonth", "DayOfWeek", "DayOfYear", "Hour", "Minute", "Second", "Week",
    "Quarter", "DateDiff", "DateAdd", "DateSub", "TimestampDiff", "TimestampAdd", "TimestampSub",
    "TsOrDsAdd", "LastDay", "ConvertTimezone", "Dayname", "Monthname", "AtTimeZone",
    # JSON accessors and builders: operators (->, ->>, #>, @>) and functions over values.
    "JSONExtract", "JSONExtractScalar", "JSONBExtract", "JSONBExtractScalar", "JSONBContains",
    "JSONKeys", "JSONType", "JSONObject", "JSONArray", "JSONFormat", "JSONValueArray",
    "JSONArrayContains", "JSONBExists", "ParseJSON",
    # Conditionals, casts and constructors: syntax, not calls.
    "Coalesce", "Nullif", "If", "Case", "Cast", "TryCast", "Array", "ArraySize", "ArrayPosition",
    "ArrayContains", "ArrayContainsAll", "ArrayOverlaps", "ArrayConcat", "Struct", "Explode",
    "Unnest", "ExplodingGenerateSeries", "GenerateSeries",
    # Operators sqlglot types as functions: boolean logic, EXISTS, array/JSON/regex comparisons.
    "And", "Or", "Xor", "Exists", "ArrayContainedBy", "JSONBContainsAllTopKeys",
    "JSONBContainsAnyTopKeys", "JSONBContainsTopKey", "JSONBDeleteAtPath", "JSONBPathExists",
    "RegexpFullMatch", "JSONValue", "TsOrDsToTimestamp", "TsOrDsToTime",
    # Who and where: session facts, read only.
    "CurrentUser", "SessionUser", "CurrentSchema", "CurrentSchemas", "CurrentDatabase",
    "CurrentVersion", "CurrentRole",
})  # fmt: skip

# Functions sqlglot leaves as plain calls, by name as PostgreSQL resolves it (ASCII lower case).
_POSTGRES = frozenset({
    # Aggregates, strings, maths, dates that sqlglot does not type.
    "every", "jsonb_agg", "json_agg", "octet_length", "quote_ident", "quote_literal",
    "quote_nullable", "regexp_match", "regexp_matches", "regexp_split_to_array",
    "regexp_split_to_table", "cardinality", "array_upper", "array_lower", "array_ndims",
    "array_dims", "array_remove", "array_replace", "array_cat", "array_append", "array_prepend",
    "to_tsvector", "to_tsquery", "plainto_tsquery", "gcd", "lcm", "mod", "div", "pi", "trunc",
    "statement_timestamp", "clock_timestamp", "transaction_timestamp", "timeofday", "now", "age",
    "make_date", "make_time", "make_timestamptz", "isfinite", "date_part", "to_char", "row",
    "generate_subscripts", "string_agg", "concat", "bool_and", "bool_or", "sha224", "sha384",
    "sha512", "host", "family", "inet_client_addr", "abbrev", "masklen",
    # JSON accessors and builders.
    "jsonb_extract_path", "jsonb_extract_path_text", "json_array_length", "jsonb_array_length",
    "json_typeof", "jsonb_typeof", "json_build_object", "jsonb_build_object", "json_build_array",
    "jsonb_build_array", "to_json", "to_jsonb", "row_to_json", "array_to_json", "json_each",
    "jsonb_each", "json_each_text", "jsonb_each_text", "json_object_keys", "jsonb_object_keys",
    "jsonb_pretty", "jsonb_array_elements", "json_array_elements", "jsonb_array_elements_text",
    "json_array_elements_text", "jsonb_path_query", "jsonb_path_exists", "jsonb_path_match",
    "jsonb_strip_nulls", "jsonb_set", "jsonb_insert",
    # Catalog and statistics functions database introspection needs: they read server state.
    "pg_blocking_pids", "pg_safe_snapshot_blocking_pids", "pg_backend_pid",
    "pg_postmaster_start_time", "pg_conf_load_time", "pg_database_size", "pg_relation_size",
    "pg_total_relation_size", "pg_table_size", "pg_indexes_size", "pg_tablespace_size",
    "pg_column_size", "pg_size_pretty", "pg_size_bytes", "pg_is_in_recovery",
    "pg_last_xact_replay_timestamp", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
    "pg_wal_lsn_diff", "pg_current_wal_lsn", "pg_current_wal_insert_lsn",
    "pg_current_wal_flush_lsn", "pg_is_wal_replay_paused", "current_database", "current_user",
    "current_schema", "current_schemas", "user", "session_user", "version", "current_setting",
    "mxid_age", "pg_get_userbyid", "pg_get_viewdef", "pg_get_indexdef", "pg_get_constraintdef",
    "pg_get_expr", "pg_get_triggerdef", "pg_get_functiondef", "pg_get_function_arguments",
    "pg_get_function_result", "pg_get_keywords", "format_type", "obj_description",
    "col_description", "shobj_description", "to_regclass", "to_regtype", "to_regproc",
    "pg_typeof", "pg_encoding_to_char", "has_table_privilege", "has_schema_privilege",
    "has_database_privilege", "has_column_privilege", "has_function_privilege", "pg_has_role",
    "pg_table_is_visible", "pg_type_is_visible", "pg_function_is_visible", "pg_jit_available",
    "pg_relation_filenode", "pg_relation_filepath", "pg_tablespace_location",
    "pg_xact_commit_timestamp", "pg_last_committed_xact", "txid_current_if_assigned",
    "pg_current_snapshot", "pg_snapshot_xmin", "pg_snapshot_xmax", "txid_current_snapshot",
    "txid_snapshot_xmin", "txid_snapshot_xmax", "pg_trigger_depth", "inet_server_addr",
    "inet_server_port", "pg_stat_get_backend_pid", "pg_stat_get_activity", "pg_lock_status",
    "pg_get_wal_replay_pause_state", "pg_listening_channels",
    "pg_notification_queue_usage", "pg_get_statisticsobjdef", "pg_options_to_table",
})  # fmt: skip

# MySQL / MariaDB plain calls, by name (case-insensitive there).
_MYSQL = frozenset({
    "octet_length", "field", "find_in_set", "strcmp", "quote", "crc32", "conv", "now", "sysdate",
    "weekday", "adddate", "subdate", "addtime", "subtime", "timediff", "unix_timestamp",
    "makedate", "sec_to_time", "time_to_sec", "from_days", "to_days", "microsecond",
    "to_seconds", "period_add", "period_diff", "yearweek", "weekofyear", "date_format",
    "get_format", "utc_date", "mod", "pi", "log2", "cot", "asin", "acos", "atan", "atan2",
    "oct", "bin", "format", "char", "lcase", "ucase", "mid", "regexp", "instr", "locate",
    "json_unquote", "json_query", "json_value", "json_contains", "json_contains_path",
    "json_length", "json_valid", "json_array", "json_search", "json_depth", "json_exists",
    "json_arrayagg", "json_compact", "json_detailed", "json_loose", "json_overlaps",
    "json_extract", "json_keys", "json_type", "json_object", "isnull", "interval",
    # Who and where: session facts, read only.
    "user", "system_user", "session_user", "current_user", "current_role", "database", "schema",
    "version", "connection_id", "found_rows", "row_count", "last_insert_id", "charset",
    "collation", "coercibility",
})  # fmt: skip

# SQLite (the world fixture) plain calls: core scalar and date functions, no extension loading.
_SQLITE = frozenset({
    "instr", "printf", "format", "ifnull", "iif", "julianday", "strftime", "date", "time",
    "datetime", "unixepoch", "total", "typeof", "unicode", "char", "hex", "quote", "likely",
    "unlikely", "likelihood", "json_extract", "json_array_length", "json_type", "json_valid",
    "json_each", "json_tree", "json_object", "json_array", "json_group_array",
    "json_group_object", "group_concat", "mod", "pi",
})  # fmt: skip

NAMED_FUNCTIONS: dict[Dialect, frozenset[str]] = {
    "postgres": _POSTGRES,
    "mysql": _MYSQL,
    "sqlite": _SQLITE,
}

# Catalogs that hold password hashes, connection strings with passwords or raw large objects.
# Refused by name in any schema, as a second line behind a role that cannot read them.
SECRET_TABLES: dict[Dialect, frozenset[str]] = {
    "postgres": frozenset({
        "pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_largeobject",
        "pg_largeobject_metadata", "pg_statistic", "pg_subscription",
    }),
    "mysql": frozenset({"user", "global_priv", "servers", "slave_master_info", "password_history"}),
    "sqlite": frozenset(),
}  # fmt: skip
# In MySQL the secret tables above are secret only in the `mysql` schema (`user` is a common name).
MYSQL_SECRET_SCHEMA = "mysql"
# The one schema a PostgreSQL call may name: built-in functions live there.
POSTGRES_FUNCTION_SCHEMA = "pg_catalog"
