// A customer as the console's API answers one (GET /v1/admin/customers/{id}), for the unit tests of
// the console's rules and store: on the Free plan, 50 credits, nothing else; `over` changes parts.
import type { Customer } from "../../contract/admin.ts";
import { FREE_PLAN } from "./account-view.ts";

export const adminCustomer = (over: Partial<Customer> = {}): Customer => ({
  id: "c1",
  username: "cora",
  email: "cora@example.com",
  role: "user",
  email_verified: true,
  created_at: "2026-11-01T00:00:00.000Z",
  last_login_at: null,
  disabled_at: null,
  dispute_hold_at: null,
  subscription: { ...FREE_PLAN },
  credit_balance: 50,
  credits: [],
  api_keys: [],
  billing_details: null,
  ...over,
});
