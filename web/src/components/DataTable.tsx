import type { ReactNode } from "react";

export interface Column<T> {
  header: string;
  cell: (item: T) => ReactNode;
  className?: string;
}

interface DataTableProps<T> {
  /** Read by screen readers (hidden on screen: the card's heading says it). */
  caption: string;
  columns: Column<T>[];
  items: T[];
  /** A row's key, also its `data-row` attribute. */
  rowKey: (item: T) => string;
}

/** The pages' table look: the first column heads its row; it scrolls sideways on a narrow window. */
export function DataTable<T>({ caption, columns, items, rowKey }: DataTableProps<T>) {
  return (
    <div className="table-scroll">
      <table className="components">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)} data-row={rowKey(item)}>
              {columns.map((column, index) =>
                index === 0 ? (
                  <th key={column.header} scope="row" className={column.className}>
                    {column.cell(item)}
                  </th>
                ) : (
                  <td key={column.header} className={column.className}>
                    {column.cell(item)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
