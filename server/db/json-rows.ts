// Many rows in one statement whose text does not depend on how many: the rows travel as one JSON
// parameter and PostgreSQL unpacks them into the table's own row type. A multi-row VALUES list has
// a new text for every row count, and each new text is one more statement for the server to
// prepare on every connection (decision 012).
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * `insert into <table> select * from jsonb_populate_recordset(null::<table>, $1)` for rows given as
 * Drizzle insert objects. Every column must be present (a missing one is NULL, not its default).
 */
export function insertJsonRows<T extends PgTable>(table: T, rows: readonly T["$inferInsert"][]): SQL {
  const columns = Object.entries(getTableColumns(table));
  const json = rows.map((row) =>
    Object.fromEntries(
      columns.map(([key, column]) => [column.name, (row as Record<string, unknown>)[key] ?? null]),
    ),
  );
  return sql`insert into ${table} select * from jsonb_populate_recordset(null::${table}, ${JSON.stringify(json)}::jsonb)`;
}
