// The console's building blocks: a titled section, and a table with a caption that a screen reader
// can jump to and a phone can scroll sideways.
import type { ReactNode } from "react";

export function Section({
  id,
  title,
  children,
  aside,
}: {
  id: string;
  title: string;
  children: ReactNode;
  aside?: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="flex min-w-0 flex-col gap-3" data-section={id}>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {aside}
      </div>
      {children}
    </section>
  );
}

export function Table({
  caption,
  head,
  children,
  numeric = [],
}: {
  caption: string;
  head: ReactNode[];
  children: ReactNode;
  /** The columns (by index) that hold amounts: their headings align right, over their figures. */
  numeric?: number[];
}) {
  return (
    // Focusable and named: a phone scrolls it sideways, and so must a keyboard (WCAG 2.1.1).
    <section
      className="overflow-x-auto rounded-box border border-base-300"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region needs keyboard access
      tabIndex={0}
      aria-label={`${caption}, table`}
    >
      <table className="table table-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {head.map((cell, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a fixed header row
              <th key={i} scope="col" className={numeric.includes(i) ? "text-right" : undefined}>
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}
