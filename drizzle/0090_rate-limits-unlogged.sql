-- The rate-limit counters need no crash safety (decision 178): an unlogged table's writes make no WAL,
-- so a transaction that writes only them commits without waiting for a flush. Emptied after a crash.
ALTER TABLE "rate_limits" SET UNLOGGED;
