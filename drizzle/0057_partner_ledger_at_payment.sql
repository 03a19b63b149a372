-- The partner ledger is written where the money is (issue 72, decision 102): a tax invoice of a
-- referred organisation becomes its transaction in the transaction that marks it paid, and a credit
-- note its reversal in the transaction that issues it (or, issued before its invoice was paid, in
-- the one that pays it). No job reads a time window, so nothing depends on when a job runs or on a
-- look-back: every payment and every credit note reaches the ledger exactly once.
--
-- Which money earns a share: a paid tax invoice (series INV: a prepaid top-up, a prepaid bank
-- transfer, a postpaid monthly invoice), net of VAT. A postpaid receipt (RCT, money on account) earns
-- nothing itself: it pays a monthly tax invoice, and that invoice earns when it is paid.
--
-- The credited invoice's row is locked before a credit note is reversed, and paying an invoice
-- updates (so locks) the same row: a payment and a credit note of one invoice are recorded one after
-- the other, each seeing what the other committed.

-- Transactions recorded from postpaid receipts were double counts of the monthly invoice they paid:
-- the ones not yet settled are removed (a settled one stays, as money already paid out).
DELETE FROM partner_transactions t USING invoices i
WHERE i.id = t.invoice_id AND t.settlement_id IS NULL
  AND (i.series = 'RCT' OR (i.kind = 'credit_note' AND EXISTS (SELECT 1 FROM invoices o WHERE o.id = i.credits_invoice_id AND o.series = 'RCT')));
--> statement-breakpoint
-- An invoice's credit notes, found by the invoice they credit (the amount due, the reversals below).
CREATE INDEX IF NOT EXISTS "invoices_credits_idx" ON "invoices" USING btree ("credits_invoice_id") WHERE credits_invoice_id is not null;
--> statement-breakpoint
-- A credit note's reversal of an invoice counted in the ledger: what is left to reverse, at the
-- invoice's share, the partner's part rounded on the running total (so a whole credit takes back
-- exactly what the invoice gave, cent for cent). Answers how many reversals it recorded.
CREATE OR REPLACE FUNCTION partner_ledger_reverse(p_invoice uuid) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  t partner_transactions%ROWTYPE;
  c record;
  reversed_amount bigint;
  reversed_part bigint;
  amount bigint;
  part bigint;
  recorded integer := 0;
BEGIN
  SELECT * INTO t FROM partner_transactions WHERE invoice_id = p_invoice;
  IF NOT FOUND OR t.amount_cents <= 0 THEN
    RETURN 0;
  END IF;
  FOR c IN
    SELECT cn.id, cn.organization_id, cn.net_cents, cn.paid_at FROM invoices cn
    WHERE cn.credits_invoice_id = p_invoice AND cn.kind = 'credit_note' AND cn.paid_at IS NOT NULL AND cn.status <> 'void'
      AND NOT EXISTS (SELECT 1 FROM partner_transactions r WHERE r.invoice_id = cn.id)
    ORDER BY cn.paid_at, cn.id
  LOOP
    SELECT coalesce(-sum(r.amount_cents), 0), coalesce(-sum(r.partner_cents), 0) INTO reversed_amount, reversed_part
    FROM partner_transactions r JOIN invoices cn ON cn.id = r.invoice_id
    WHERE cn.credits_invoice_id = p_invoice AND cn.kind = 'credit_note';
    amount := least(c.net_cents, t.amount_cents - reversed_amount);
    IF amount > 0 THEN
      part := round((reversed_amount + amount) * t.share_bps / 10000.0)::bigint - reversed_part;
      INSERT INTO partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents,
                                        platform_cents, occurred_at)
      VALUES (t.partner_id, c.organization_id, c.id, 'credit_note', -amount, t.share_bps, -part, -amount + part,
              greatest(c.paid_at, t.occurred_at))
      ON CONFLICT (invoice_id) DO NOTHING;
      recorded := recorded + 1;
    END IF;
  END LOOP;
  RETURN recorded;
END $$;
--> statement-breakpoint
-- One invoice into the ledger, if it earns: a paid tax invoice of an organisation attributed to an
-- active partner when it was paid, at the share of that moment; then the credit notes already
-- issued against it. A credit note: its reversal, under its invoice's row lock. Idempotent.
CREATE OR REPLACE FUNCTION partner_ledger_record(p_invoice uuid) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  i invoices%ROWTYPE;
  k integer;
BEGIN
  SELECT * INTO i FROM invoices WHERE id = p_invoice;
  IF NOT FOUND OR i.paid_at IS NULL OR i.status = 'void' THEN
    RETURN 0;
  END IF;
  IF i.kind = 'credit_note' THEN
    IF i.credits_invoice_id IS NULL THEN
      RETURN 0;
    END IF;
    PERFORM 1 FROM invoices WHERE id = i.credits_invoice_id FOR UPDATE;
    RETURN partner_ledger_reverse(i.credits_invoice_id);
  END IF;
  IF i.series <> 'INV' OR i.kind NOT IN ('topup', 'subscription', 'bank_transfer') OR i.net_cents <= 0 THEN
    RETURN 0;
  END IF;
  INSERT INTO partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents,
                                    platform_cents, occurred_at)
  SELECT a.partner_id, i.organization_id, i.id, i.kind, i.net_cents, s.share_bps, x.part, i.net_cents - x.part, i.paid_at
  FROM partner_attributions a
  JOIN partners p ON p.id = a.partner_id AND p.status = 'active'
  CROSS JOIN LATERAL (SELECT c.share_bps FROM partner_share_changes c
                      WHERE c.partner_id = a.partner_id AND c.effective_from <= i.paid_at
                      ORDER BY c.effective_from DESC, c.id DESC LIMIT 1) s
  CROSS JOIN LATERAL (SELECT round(i.net_cents * s.share_bps / 10000.0)::bigint AS part) x
  WHERE a.organization_id = i.organization_id AND a.started_at <= i.paid_at AND (a.ended_at IS NULL OR a.ended_at > i.paid_at)
  ON CONFLICT (invoice_id) DO NOTHING;
  GET DIAGNOSTICS k = ROW_COUNT;
  RETURN k + partner_ledger_reverse(i.id);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION partner_ledger_on_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM partner_ledger_record(NEW.id);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER partner_ledger_on_invoice AFTER INSERT OR UPDATE OF paid_at, status, credits_invoice_id ON invoices
FOR EACH ROW WHEN (NEW.paid_at IS NOT NULL AND NEW.status <> 'void')
EXECUTE FUNCTION partner_ledger_on_invoice();
--> statement-breakpoint
-- What the minute's job had not recorded yet when this was deployed, once, in order of payment.
SELECT partner_ledger_record(i.id) FROM invoices i
WHERE i.paid_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM partner_transactions t WHERE t.invoice_id = i.id)
  AND EXISTS (SELECT 1 FROM partner_attributions a WHERE a.organization_id = i.organization_id)
ORDER BY i.paid_at, i.id;
--> statement-breakpoint
-- The minute's recording job is gone: its schedule, its waiting runs and its watermark with it.
DELETE FROM recurring_jobs WHERE name = 'partners-record';
--> statement-breakpoint
DELETE FROM jobs WHERE queue = 'partners.record';
--> statement-breakpoint
DELETE FROM partner_schedule WHERE name = 'ledger';
