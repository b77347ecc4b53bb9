// The look of a button that destroys or takes away (revoke, disable, remove), in one place.

/**
 * The error colour for an outline button, its text moved toward the page's text (darker in the
 * light theme, lighter in the dark): daisyUI's light error red on white is 2.9:1, short of WCAG
 * AA's 4.5:1. Add it to `btn btn-outline`.
 */
export const DANGER =
  "btn-error [--btn-rest-fg:color-mix(in_oklab,var(--color-error)_60%,var(--color-base-content))]";

/** A whole outline danger button's classes (add a size). */
export const DANGER_OUTLINE = `btn btn-outline ${DANGER}`;
