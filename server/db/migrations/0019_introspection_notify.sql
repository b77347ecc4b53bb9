-- Each instance keeps active API key introspections for up to 1 s (decision 034). Every committed
-- change that can make such an answer wrong tells every instance on the channel
-- portal_introspection, whatever code made it: a key revoked, edited or deleted; a user disabled,
-- renamed or deleted; an organisation disabled, renamed or deleted; a member removed or their
-- monthly cap changed. Nothing else: last_used_at and balances are written all the time (the 1 s
-- bounds how old a cached balance is). The payload is the table's name; a transaction's identical
-- notifications arrive once.
CREATE FUNCTION "portal_introspection_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('portal_introspection', TG_TABLE_NAME);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "api_keys_introspection_update"
  AFTER UPDATE OF "revoked_at", "expires_at", "features", "monthly_credit_limit", "shared", "created_by", "user_id", "secret_hash" ON "api_keys"
  FOR EACH ROW WHEN (
    OLD."revoked_at" IS DISTINCT FROM NEW."revoked_at"
    OR OLD."expires_at" IS DISTINCT FROM NEW."expires_at"
    OR OLD."features" IS DISTINCT FROM NEW."features"
    OR OLD."monthly_credit_limit" IS DISTINCT FROM NEW."monthly_credit_limit"
    OR OLD."shared" IS DISTINCT FROM NEW."shared"
    OR OLD."created_by" IS DISTINCT FROM NEW."created_by"
    OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
    OR OLD."secret_hash" IS DISTINCT FROM NEW."secret_hash"
  ) EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "api_keys_introspection_delete" AFTER DELETE ON "api_keys"
  FOR EACH ROW EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "users_introspection_update"
  AFTER UPDATE OF "disabled_at", "deleted_at", "username" ON "users"
  FOR EACH ROW WHEN (
    OLD."disabled_at" IS DISTINCT FROM NEW."disabled_at"
    OR OLD."deleted_at" IS DISTINCT FROM NEW."deleted_at"
    OR OLD."username" IS DISTINCT FROM NEW."username"
  ) EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "users_introspection_delete" AFTER DELETE ON "users"
  FOR EACH ROW EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "organizations_introspection_update"
  AFTER UPDATE OF "disabled_at", "deleted_at", "name" ON "organizations"
  FOR EACH ROW WHEN (
    OLD."disabled_at" IS DISTINCT FROM NEW."disabled_at"
    OR OLD."deleted_at" IS DISTINCT FROM NEW."deleted_at"
    OR OLD."name" IS DISTINCT FROM NEW."name"
  ) EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "organizations_introspection_delete" AFTER DELETE ON "organizations"
  FOR EACH ROW EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "organization_members_introspection_update"
  AFTER UPDATE OF "monthly_credit_cap", "org_id", "user_id" ON "organization_members"
  FOR EACH ROW WHEN (
    OLD."monthly_credit_cap" IS DISTINCT FROM NEW."monthly_credit_cap"
    OR OLD."org_id" IS DISTINCT FROM NEW."org_id"
    OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
  ) EXECUTE FUNCTION "portal_introspection_changed"();--> statement-breakpoint
CREATE TRIGGER "organization_members_introspection_delete" AFTER DELETE ON "organization_members"
  FOR EACH ROW EXECUTE FUNCTION "portal_introspection_changed"();
