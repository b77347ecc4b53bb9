interface ImportMetaEnv {
  /** Origin of the /v1 API; empty or unset means the same origin as the pages. */
  readonly PUBLIC_API_BASE_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}

declare namespace Astro {
  interface ClientDirectives {
    /** Hydrate after the first contentful paint, when the browser is idle (src/integrations/after-paint.ts). */
    "client:afterpaint"?: boolean;
  }
}
