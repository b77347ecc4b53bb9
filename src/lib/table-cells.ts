// What each column of a console table is on a phone, where its rows stack as cards: the key column
// is the card's title, the action column holds its buttons, and every other cell is labelled with
// its column's heading (ConsoleTable.tsx and console-table.css draw them).
import { isValidElement, type ReactNode } from "react";

export interface CellRole {
  /** The column's heading as text: the cell's label on a card (none for the key and the action). */
  label?: string;
  /** "key" and "action" cells are drawn without a label: the title, and the buttons. */
  cell?: "key" | "action";
}

/** A heading's text, whatever it is wrapped in (an action column's visually hidden name, say). */
export function headingText(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(headingText).join("");
  if (isValidElement<{ children?: ReactNode }>(node)) return headingText(node.props.children);
  return "";
}

/** One role per column, in the heading's order. */
export function cellRoles(head: readonly ReactNode[], keyColumn: number, actionColumn?: number): CellRole[] {
  return head.map((heading, i) => {
    if (i === keyColumn) return { cell: "key" };
    if (i === actionColumn) return { cell: "action" };
    const label = headingText(heading).trim();
    return label ? { label } : {};
  });
}
