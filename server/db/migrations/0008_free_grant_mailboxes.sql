-- One free grant per canonical mailbox (ACCOUNT-SECURITY.md, billing/free-grant-mailboxes.ts).
CREATE TABLE "free_grant_mailboxes" (
	"mailbox_digest" text PRIMARY KEY NOT NULL,
	"granted_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- The mailboxes that already had their free credits, as auth/mailbox.ts's canonicalMailbox and
-- mailboxDigest compute them (free-grant-mailboxes.test.ts runs this statement against them).
INSERT INTO "free_grant_mailboxes" ("mailbox_digest", "granted_at")
SELECT encode(sha256(convert_to('free-grant:' || mailbox, 'UTF8')), 'hex'), min(granted_at)
FROM (
	SELECT CASE WHEN domain IN ('gmail.com', 'googlemail.com')
			THEN replace(split_part(local, '+', 1), '.', '') || '@gmail.com'
			ELSE split_part(local, '+', 1) || '@' || domain
		END AS mailbox, granted_at
	FROM (
		SELECT lower(substring(btrim(u.email) from '^(.*)@')) AS local,
			lower(substring(btrim(u.email) from '@([^@]*)$')) AS domain, g.granted_at
		FROM "users" u JOIN "credit_grants" g ON g.user_id = u.id AND g.kind = 'free'
	) AS addresses
) AS mailboxes
GROUP BY mailbox
ON CONFLICT DO NOTHING;
