// Development only (never registered in production): the outbox as a page (/_dev/mail), as JSON for
// browser tests (/_dev/mail.json), and each message raw (/_dev/mail/{id}).
import { createHash } from "node:crypto";
import { Hono } from "hono";
import { listOutbox, readOutboxRaw } from "../../mail/outbox.ts";
import { escapeHtml } from "../../mail/templates.ts";

const STYLE = `
body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2937}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:.5rem;text-align:left;vertical-align:top}
th{background:#f9fafb}
td.links a{display:block;word-break:break-all}
.empty{color:#6b7280}
`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/** The page's own policy: its one hashed stylesheet, no scripts at all. */
export const DEV_MAIL_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function row(entry: Awaited<ReturnType<typeof listOutbox>>[number]): string {
  const links = entry.links.map((l) => `<a href="${escapeHtml(l)}">${escapeHtml(l)}</a>`).join("");
  return `<tr><td>${escapeHtml(entry.date)}</td><td>${escapeHtml(entry.to)}</td><td>${escapeHtml(entry.subject)}</td><td class="links">${links}</td><td><a href="/_dev/mail/${escapeHtml(entry.id)}">raw</a></td></tr>`;
}

export function devMailPage(entries: Awaited<ReturnType<typeof listOutbox>>, transport: string): string {
  const body =
    entries.length === 0
      ? `<p class="empty">No mail yet.${transport === "smtp" ? " Mail goes out through SMTP_URL, not into the outbox." : ""}</p>`
      : `<table><thead><tr><th>Time</th><th>To</th><th>Subject</th><th>Links</th><th></th></tr></thead><tbody>${entries.map(row).join("")}</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Outbox</title><style>${STYLE}</style></head>
<body><h1>Outbox</h1><p>Newest first. Development only.</p>${body}</body></html>
`;
}

export function devMailRoutes(outbox: string, transport: "outbox" | "smtp"): Hono {
  const app = new Hono();
  app.get("/mail", async (c) =>
    c.html(devMailPage(await listOutbox(outbox), transport), 200, {
      "Content-Security-Policy": DEV_MAIL_CSP,
      "Cache-Control": "no-store",
    }),
  );
  app.get("/mail.json", async (c) =>
    c.json({ data: await listOutbox(outbox) }, 200, { "Cache-Control": "no-store" }),
  );
  app.get("/mail/:id", async (c) => {
    const raw = await readOutboxRaw(outbox, c.req.param("id"));
    if (raw === undefined) return c.json({ detail: "Not Found" }, 404);
    return c.text(raw, 200, { "Cache-Control": "no-store" });
  });
  return app;
}
