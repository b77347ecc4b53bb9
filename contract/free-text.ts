// What free text (a reason, a name, a label) may hold: printable, well-formed Unicode. Control
// characters hide text in the console and in mail, U+0000 is refused by PostgreSQL's text and jsonb
// (after a provider call, it failed the action's audit entry), and a lone surrogate is not Unicode:
// drivers replace it, and the stored text no longer matches what was hashed (decision 022).
// Browser-safe: the portal's forms check with the same rule.
import * as z from "zod/mini";

/** C0 controls, DEL and C1 controls (Unicode's Cc). */
const CONTROL = /\p{Cc}/u;
/** The same, but line breaks and tabs are allowed: a multi-line reason keeps its paragraphs. */
const CONTROL_BUT_LINE_BREAKS = /(?![\t\n\r])\p{Cc}/u;

/** True for text with no ill-formed Unicode and no control character (line breaks too, unless `multiline`). */
export function isPrintableText(text: string, multiline = false): boolean {
  return text.isWellFormed() && !(multiline ? CONTROL_BUT_LINE_BREAKS : CONTROL).test(text);
}

/** The message beside a field whose text is not printable. */
export const notPrintable = (field: string) =>
  `${field} can hold only printable characters (no control characters or broken Unicode)`;

/** A check for a zod/mini string: printable text, with `message` otherwise. */
export const printable = (message: string, multiline = false) =>
  z.refine<string>((text) => isPrintableText(text, multiline), { error: message });
