CREATE TABLE "partner_status_changes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "partner_status_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"partner_id" uuid NOT NULL,
	"status" text NOT NULL,
	"effective_from" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "partner_status_changes_partner_idx" ON "partner_status_changes" USING btree ("partner_id","effective_from");--> statement-breakpoint
-- What is known of the partners already here: active from their approval, suspended since their last change.
INSERT INTO partner_status_changes (partner_id, status, effective_from)
SELECT id, 'active', coalesce(approved_at, created_at) FROM partners WHERE status IN ('active', 'suspended') AND approved_at IS NOT NULL;
--> statement-breakpoint
INSERT INTO partner_status_changes (partner_id, status, effective_from)
SELECT id, 'suspended', greatest(updated_at, coalesce(approved_at, created_at)) FROM partners WHERE status = 'suspended';
--> statement-breakpoint
-- A payment earns if its partner was active when it was paid (its status history), not when the ledger
-- happens to record it: an invoice recorded again after a suspension ended earns nothing it did not earn
-- then. A partner without history (written directly, as the demo seed does) is judged by its status now.
CREATE OR REPLACE FUNCTION partner_active_at(p_partner uuid, p_at timestamptz) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT h.status = 'active' FROM partner_status_changes h
     WHERE h.partner_id = p_partner AND h.effective_from <= p_at ORDER BY h.effective_from DESC, h.id DESC LIMIT 1),
    CASE WHEN EXISTS (SELECT 1 FROM partner_status_changes h WHERE h.partner_id = p_partner) THEN false
         ELSE (SELECT p.status = 'active' FROM partners p WHERE p.id = p_partner) END)
$$;
--> statement-breakpoint
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
  CROSS JOIN LATERAL (SELECT c.share_bps FROM partner_share_changes c
                      WHERE c.partner_id = a.partner_id AND c.effective_from <= i.paid_at
                      ORDER BY c.effective_from DESC, c.id DESC LIMIT 1) s
  CROSS JOIN LATERAL (SELECT round(i.net_cents * s.share_bps / 10000.0)::bigint AS part) x
  WHERE a.organization_id = i.organization_id AND a.started_at <= i.paid_at AND (a.ended_at IS NULL OR a.ended_at > i.paid_at)
    AND partner_active_at(a.partner_id, i.paid_at)
  ON CONFLICT (invoice_id) DO NOTHING;
  GET DIAGNOSTICS k = ROW_COUNT;
  RETURN k + partner_ledger_reverse(i.id);
END $$;
