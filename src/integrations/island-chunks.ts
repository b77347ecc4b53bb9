// How the islands' JavaScript is cut into files (decision 008's budget: 80 KB gzip on any page).
// Build-time only: nothing here reaches the browser.
//
// 1. One "shell" chunk for what every page runs: React and its renderer, and the islands every
//    page hydrates (the toast host and the top bar's plan badge and account menu) with everything
//    they import statically. Left to itself the bundler cuts that into about 16 files of a few
//    hundred bytes each; as one file it is about 2 KB smaller in gzip (one gzip stream instead of
//    16, no import/export glue between them) and 15 requests fewer.
// 2. Dynamic imports stay plain `import()`. Vite wraps each one in a 3.4 KB helper that preloads
//    the imported chunk's own imports and CSS; here every lazily loaded chunk's CSS is already on
//    the page and its imports are either on the page (React, the shell) or a few hundred bytes, so
//    the helper cost every page about 0.7 KB gzip for next to nothing.
import type { Plugin } from "vite";

/** Islands on every page (BaseLayout, TopBar, MobileMenu) and Astro's React renderer. */
export const SHELL_ENTRIES: readonly RegExp[] = [
  /[\\/]src[\\/]islands[\\/]toast[\\/]ToastHost\.tsx$/,
  /[\\/]src[\\/]islands[\\/]account[\\/](?:PlanBadge|AccountMenu)\.tsx$/,
  /[\\/]@astrojs[\\/]react[\\/]dist[\\/]client\.js$/,
  // A hook of a few lines that the forms, the plan buttons and the passkey button share: in the
  // shell it costs every page 0.1 KB; in a group of its own or with the forms it pulled a chunk
  // into /plans.
  /[\\/]src[\\/]islands[\\/]auth[\\/]use-hydrated\.ts$/,
];

/**
 * Modules the shell reaches only through a package's index that re-exports everything, and never
 * uses: nanostores' index names computed, map, tasks and lifecycle hooks, which only the catalogue
 * store (@nanostores/query, loaded on use on /plans) needs. Followed through the index they would
 * ride in the shell on every page (about 0.4 KB gzip); left out, they load with their user.
 */
export const NOT_SHELL: readonly RegExp[] = [
  /[\\/]node_modules[\\/]nanostores[\\/](?:computed|effect|keep-mount|lifecycle|map|map-creator|task|warn)[\\/]/,
];

/**
 * What every form island shares (its fields, the hook that validates them, their error texts):
 * one chunk instead of three of a few hundred bytes each, about 0.4 KB gzip less on /login,
 * /register and the token pages. They import nothing else outside the shell, so the group pulls
 * nothing else in.
 */
export const FORM_PARTS =
  /[\\/]src[\\/](?:islands[\\/]forms[\\/](?:Field\.tsx|use-form\.ts)|lib[\\/]form-errors\.ts)$/;

/**
 * What the pages that open a mailed link share (/verify-email, /reset-password, /confirm-email):
 * reading the token from the address, the waiting state and the invalid-token state. One chunk
 * instead of three; the signed-in pages that show the waiting state too have room for the rest.
 */
export const TOKEN_PAGE_PARTS =
  /[\\/]src[\\/](?:islands[\\/]auth[\\/]LoadingState\.tsx|islands[\\/]forms[\\/]InvalidToken\.tsx|lib[\\/]route-param\.ts)$/;

/** The part of the bundler's module info the chunking rule reads. */
export interface ModuleGraphInfo {
  /** Modules that import this one statically (dynamic importers are listed elsewhere). */
  importers: readonly string[];
}

export type GetModuleInfo = (id: string) => ModuleGraphInfo | null;

/**
 * A rule answering "does every page load this module?": true for a shell entry and for any module
 * a shell module imports statically, directly or through others. Modules the shell only imports
 * dynamically (the API client's schemas, the toast view) stay out: they load on demand.
 */
export function shellMembership(
  entries: readonly RegExp[] = SHELL_ENTRIES,
  excluded: readonly RegExp[] = NOT_SHELL,
): (id: string, getModuleInfo: GetModuleInfo) => boolean {
  const memo = new Map<string, boolean>();
  const inShell = (id: string, getModuleInfo: GetModuleInfo): boolean => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    memo.set(id, false); // an import cycle back to this module adds nothing
    const info = getModuleInfo(id);
    const result =
      info !== null &&
      !excluded.some((pattern) => pattern.test(id)) &&
      (entries.some((entry) => entry.test(id)) ||
        info.importers.some((importer) => inShell(importer, getModuleInfo)));
    memo.set(id, result);
    return result;
  };
  return inShell;
}

/** `vite.environments.client.build.rolldownOptions.output.codeSplitting` for the portal. */
export function islandCodeSplitting() {
  // One rule, and so one memo, per build: the module graph does not change while it is chunked.
  const inShell = shellMembership();
  return {
    groups: [
      {
        name: (id: string, ctx: { getModuleInfo: GetModuleInfo }) =>
          inShell(id, (other) => ctx.getModuleInfo(other)) ? "shell" : null,
      },
      { name: "form-parts", test: FORM_PARTS },
      { name: "token-page-parts", test: TOKEN_PAGE_PARTS },
    ],
  };
}

const PRELOAD_HELPER = "\0vite/preload-helper.js";

/**
 * Turns off Vite's module preloading for the browser build and replaces its helper with a plain
 * call. Fails the build if a lazily loaded chunk still needs CSS loaded for it (the plain helper
 * does not load CSS): import such CSS statically instead.
 */
export function plainDynamicImports(): Plugin {
  return {
    name: "portal:plain-dynamic-imports",
    enforce: "pre",
    configEnvironment(name, config) {
      if (name !== "client") return;
      config.build ??= {};
      config.build.modulePreload = false;
    },
    load(id) {
      if (id === PRELOAD_HELPER) return "export const __vitePreload = (load) => load();";
      return undefined;
    },
    writeBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type === "chunk" && file.code.includes("__vite__mapDeps(")) {
          this.error(
            `${file.fileName} lazily loads a chunk that needs its CSS preloaded; import that CSS statically`,
          );
        }
      }
    },
  };
}
