// The console's building blocks: a titled section, and a table with a caption that a screen reader
// can jump to. Wide screens scroll a wide table sideways (with shadows at the edge that has more); a
// phone shows each row as a card instead, so no column and no action is cut off
// (console-table.css; the cells' roles come from src/lib/table-cells.ts).
import { Children, cloneElement, isValidElement, type ReactElement, type ReactNode } from "react";
import { type CellRole, cellRoles } from "../../lib/table-cells.ts";
import "./console-table.css";

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
  keyColumn = 0,
  actionColumn,
}: {
  caption: string;
  head: ReactNode[];
  /** The rows: `<tr>` elements whose `<td>`s follow `head`'s order (how their cards are labelled). */
  children: ReactNode;
  /** The columns (by index) that hold amounts: their headings align right, over their figures. */
  numeric?: number[];
  /** The column that names a row: the title of its card on a phone. */
  keyColumn?: number;
  /** The column with the row's buttons, if any: unlabelled on a card (and dropped when empty). */
  actionColumn?: number;
}) {
  return (
    // Focusable and named: a wide table scrolls sideways, and so must a keyboard (WCAG 2.1.1).
    <section
      className="console-table-scroll overflow-x-auto rounded-box border border-base-300"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region needs keyboard access
      tabIndex={0}
      aria-label={`${caption}, table`}
    >
      <table className="console-table table table-sm">
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
        <tbody>{withRoles(children, cellRoles(head, keyColumn, actionColumn))}</tbody>
      </table>
    </section>
  );
}

type Cell = ReactElement<{ "data-label"?: string | undefined; "data-cell"?: string | undefined }>;

/** Marks each row's cells with their column's role (data-label, data-cell) for the phone's cards. */
function withRoles(rows: ReactNode, roles: readonly CellRole[]): ReactNode {
  return Children.map(rows, (row) => {
    if (!isValidElement<{ children?: ReactNode }>(row) || row.type !== "tr") return row;
    let column = 0;
    const cells = Children.map(row.props.children, (cell) => {
      if (!isValidElement(cell)) return cell;
      const role = roles[column++];
      return role ? cloneElement(cell as Cell, { "data-label": role.label, "data-cell": role.cell }) : cell;
    });
    return cloneElement(row, undefined, cells);
  });
}
