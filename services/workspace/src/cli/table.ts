/** `--format table`: a list as rows and columns, one record as field and value. */
export function asTable(answer: unknown): string {
  const record = answer as { object?: string; data?: unknown[] };
  if (record?.object === "list" && Array.isArray(record.data)) return rows(record.data);
  if (answer && typeof answer === "object") {
    return rows(Object.entries(answer).map(([field, value]) => ({ field, value })));
  }
  return String(answer);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value) && value.every((item) => typeof item !== "object")) {
    return value.join(",");
  }
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function rows(items: unknown[]): string {
  if (items.length === 0) return "(none)";
  const columns = [...new Set(items.flatMap((item) => Object.keys(item as object)))].filter(
    (column) => column !== "object",
  );
  const cells = items.map((item) =>
    columns.map((column) => cell((item as Record<string, unknown>)[column])),
  );
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((row) => row[i]!.length)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}
