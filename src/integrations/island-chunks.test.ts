import { describe, expect, it } from "vitest";
import {
  FORM_PARTS,
  type GetModuleInfo,
  islandCodeSplitting,
  NOT_SHELL,
  SHELL_ENTRIES,
  shellMembership,
  TOKEN_PAGE_PARTS,
} from "./island-chunks.ts";

/** A module graph as the bundler reports it: each module with its static importers. */
function graph(importers: Record<string, string[]>): GetModuleInfo {
  return (id) => (id in importers ? { importers: importers[id] ?? [] } : null);
}

const ROOT = "/app/src/islands";
const TOAST_HOST = `${ROOT}/toast/ToastHost.tsx`;
const ACCOUNT_MENU = `${ROOT}/account/AccountMenu.tsx`;
const RENDERER = "/app/node_modules/@astrojs/react/dist/client.js";
const LOGIN_FORM = `${ROOT}/forms/LoginForm.tsx`;

describe("shellMembership", () => {
  const modules = graph({
    [TOAST_HOST]: [],
    [ACCOUNT_MENU]: [],
    [RENDERER]: [],
    [LOGIN_FORM]: [],
    "/app/node_modules/react/index.js": [RENDERER, TOAST_HOST, LOGIN_FORM],
    "/app/src/stores/auth.ts": ["/app/src/islands/auth/use-session.ts"],
    "/app/src/islands/auth/use-session.ts": [ACCOUNT_MENU, LOGIN_FORM],
    "/app/src/islands/forms/use-form.ts": [LOGIN_FORM],
    // Imported only dynamically by the shell: not a static importer, so it stays lazy.
    "/app/src/islands/toast/toast-view.tsx": [],
    "/app/src/a.ts": ["/app/src/b.ts"],
    "/app/src/b.ts": ["/app/src/a.ts", LOGIN_FORM],
  });

  it.each([
    [TOAST_HOST, true],
    [ACCOUNT_MENU, true],
    [RENDERER, true],
    ["/app/node_modules/react/index.js", true],
    ["/app/src/stores/auth.ts", true],
    [LOGIN_FORM, false],
    ["/app/src/islands/forms/use-form.ts", false],
    ["/app/src/islands/toast/toast-view.tsx", false],
    ["/app/src/a.ts", false],
    ["/unknown.ts", false],
  ])("%s -> in the shell: %s", (id, expected) => {
    expect(shellMembership()(id, modules)).toBe(expected);
  });

  it("leaves out what the shell reaches only through nanostores' index, and what only they import", () => {
    const NANO = "/app/node_modules/nanostores";
    const withBarrel = graph({
      [ACCOUNT_MENU]: [],
      "/app/src/stores/auth.ts": [ACCOUNT_MENU],
      [`${NANO}/index.js`]: ["/app/src/stores/auth.ts"],
      [`${NANO}/atom/index.js`]: [`${NANO}/index.js`],
      [`${NANO}/listen-keys/index.js`]: [`${NANO}/index.js`],
      [`${NANO}/computed/index.js`]: [`${NANO}/index.js`],
      [`${NANO}/map/index.js`]: [`${NANO}/index.js`],
      [`${NANO}/lifecycle/index.js`]: [`${NANO}/index.js`, `${NANO}/computed/index.js`],
      [`${NANO}/task/index.js`]: [`${NANO}/index.js`],
      [`${NANO}/warn/index.js`]: [`${NANO}/computed/index.js`],
    });
    const inShell = shellMembership();
    expect(inShell(`${NANO}/atom/index.js`, withBarrel)).toBe(true);
    expect(inShell(`${NANO}/listen-keys/index.js`, withBarrel)).toBe(true);
    for (const lazy of ["computed", "map", "lifecycle", "task", "warn"]) {
      expect(inShell(`${NANO}/${lazy}/index.js`, withBarrel), lazy).toBe(false);
    }
    // Windows paths too.
    expect(NOT_SHELL.some((p) => p.test("C:\\app\\node_modules\\nanostores\\computed\\index.js"))).toBe(true);
  });

  it("names the three layout islands and the React renderer, on any platform's paths", () => {
    const matches = (id: string) => SHELL_ENTRIES.some((entry) => entry.test(id));
    expect(matches(TOAST_HOST)).toBe(true);
    expect(matches("C:\\app\\src\\islands\\account\\PlanBadge.tsx")).toBe(true);
    expect(matches(ACCOUNT_MENU)).toBe(true);
    expect(matches(RENDERER)).toBe(true);
    expect(matches(LOGIN_FORM)).toBe(false);
    expect(matches(`${ROOT}/account/AccountMenu.test.tsx`)).toBe(false);
  });
});

describe("the shared chunks of the forms and the token pages", () => {
  it.each([
    ["/app/src/islands/forms/Field.tsx", FORM_PARTS, true],
    ["/app/src/islands/forms/use-form.ts", FORM_PARTS, true],
    ["C:\\app\\src\\lib\\form-errors.ts", FORM_PARTS, true],
    ["/app/src/islands/forms/LoginForm.tsx", FORM_PARTS, false],
    ["/app/src/lib/form-errors.test.ts", FORM_PARTS, false],
    ["/app/src/islands/auth/LoadingState.tsx", TOKEN_PAGE_PARTS, true],
    ["/app/src/islands/forms/InvalidToken.tsx", TOKEN_PAGE_PARTS, true],
    ["/app/src/lib/route-param.ts", TOKEN_PAGE_PARTS, true],
    ["/app/src/islands/forms/ResetPassword.tsx", TOKEN_PAGE_PARTS, false],
  ])("%s -> in its group: %s", (id, group, expected) => {
    expect(group.test(id)).toBe(expected);
  });

  it("puts the shell first, then the form parts and the token pages' parts", () => {
    const groups = islandCodeSplitting().groups;
    expect(groups.map((g) => ("test" in g ? g.name : "shell"))).toEqual([
      "shell",
      "form-parts",
      "token-page-parts",
    ]);
  });
});
