-- Issue 72 (decision 103). Settlement ids were md5(partner:period) cast to uuid: no UUID by the
-- format the API answers (GET /api/v1/partner failed with 500). Each derived id keeps its md5 with two
-- nibbles set, version 3 and RFC 4122's variant, as settleMonth now derives it; every place holding
-- the id moves with it: the transactions and payout attempts, and the partner.settlement.paid events
-- not yet delivered (a delivered one stays as it was sent; the append-only admin audit log keeps the
-- old id, which maps to the new one by those two nibbles).
WITH moved AS (
  SELECT id AS old_id,
         overlay(overlay(replace(id::text, '-', '') placing '3' from 13 for 1)
                 placing substr('89ab', (('x' || substr(replace(id::text, '-', ''), 17, 1))::bit(4)::int & 3) + 1, 1) from 17 for 1)::uuid AS new_id
  FROM partner_settlements
  WHERE id = md5(partner_id::text || ':' || to_char(period, 'YYYY-MM-DD'))::uuid
),
transactions AS (
  UPDATE partner_transactions t SET settlement_id = m.new_id FROM moved m WHERE t.settlement_id = m.old_id AND m.new_id <> m.old_id
),
payouts AS (
  UPDATE partner_payouts p SET settlement_id = m.new_id FROM moved m WHERE p.settlement_id = m.old_id AND m.new_id <> m.old_id
),
deliveries AS (
  UPDATE webhook_deliveries d SET payload = replace(d.payload::text, m.old_id::text, m.new_id::text)::json
  FROM moved m
  WHERE d.event_type = 'partner.settlement.paid' AND d.status <> 'delivered' AND m.new_id <> m.old_id
    AND strpos(d.payload::text, m.old_id::text) > 0
)
UPDATE partner_settlements s SET id = m.new_id FROM moved m WHERE s.id = m.old_id AND m.new_id <> m.old_id;
--> statement-breakpoint
-- What is paid, beside what is owed: M-Pesa pays whole shillings, the cents go to the partner's next
-- settlement (a bank transfer pays to the cent). Settlements before this paid their whole shillings
-- (the payout took the floor of the net): their cents are carried out, and the partner's next
-- settlement carries in every cent its earlier ones counted and did not pay.
ALTER TABLE "partner_settlements" ADD COLUMN "carried_in_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "partner_settlements" ADD COLUMN "carried_out_cents" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "partner_settlements" ADD COLUMN "payable_cents" bigint;--> statement-breakpoint
UPDATE "partner_settlements" SET carried_out_cents = CASE WHEN payout_method = 'mpesa' THEN net_cents % 100 ELSE 0 END,
                                 payable_cents = net_cents - CASE WHEN payout_method = 'mpesa' THEN net_cents % 100 ELSE 0 END;--> statement-breakpoint
ALTER TABLE "partner_settlements" ALTER COLUMN "payable_cents" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "partner_settlements" ADD CONSTRAINT "partner_settlements_payable_check" CHECK (payable_cents = net_cents + carried_in_cents - carried_out_cents);--> statement-breakpoint
ALTER TABLE "partner_settlements" ADD CONSTRAINT "partner_settlements_carry_check" CHECK (carried_in_cents >= 0 and carried_out_cents >= 0
          and case when payout_method = 'mpesa' then carried_out_cents < 100 and payable_cents % 100 = 0 else carried_out_cents = 0 end);
