// A receipt mail's invoice link names a team organisation (`org`): the invoice page reads the
// invoice and its PDF in that organisation, whatever the portal has chosen, and leaves the choice.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { apiDownload, loadSchemas } from "../lib/api-client.ts";
import { chooseOrganization, chosenOrganization } from "../lib/auth-storage.ts";
import { memoryStorage } from "../lib/memory-storage.ts";
import { $invoice, loadInvoice } from "./billing-history.ts";

/** The X-Organization header of each request, in order (null: none). */
let organizations: (string | null)[];

// Loaded once before the calls: a 404 answer ends a call before its schemas have loaded, and a load
// still under way when the file ends would be refused by the torn-down environment.
beforeAll(async () => {
  await loadSchemas();
});

beforeEach(() => {
  vi.stubGlobal("localStorage", memoryStorage());
  vi.stubGlobal("sessionStorage", memoryStorage());
  localStorage.setItem("x-access-token", "token");
  organizations = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
      organizations.push(headers.get("X-Organization"));
      return new Response(JSON.stringify({ detail: "Invoice not found" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }),
  );
});

afterEach(() => {
  chooseOrganization(null);
  vi.unstubAllGlobals();
});

describe("an invoice read in the organisation a link names", () => {
  it("is asked for in that organisation, and the portal's choice stays as it was", async () => {
    chooseOrganization("org-chosen");
    await loadInvoice("inv-1", "org-of-the-mail");
    await apiDownload("/v1/billing/invoices/inv-1/pdf", { organization: "org-of-the-mail" }).catch(() => {});
    expect(organizations).toEqual(["org-of-the-mail", "org-of-the-mail"]);
    expect(chosenOrganization()).toBe("org-chosen");
    expect($invoice.get()).toEqual({ status: "not_found" });
  });

  it("is asked for in the chosen organisation when the link names none", async () => {
    chooseOrganization("org-chosen");
    await loadInvoice("inv-1");
    chooseOrganization(null);
    await loadInvoice("inv-1");
    await apiDownload("/v1/billing/invoices/inv-1/pdf", { organization: null }).catch(() => {});
    expect(organizations).toEqual(["org-chosen", null, null]);
  });
});
