import { Form } from "react-router";
import { Trash2 } from "~/components/ui/icons";
import type { Column } from "./table";
import { m } from "~/paraglide/messages";

/**
 * A table's last column of remove buttons: each row's own small form posts `intent` with the row's
 * `name=value`, so removing works without JavaScript. `label` names what goes, for screen readers
 * (the button shows only a bin).
 */
export function removeRowColumn<Row>({
  intent,
  name,
  value,
  label,
}: {
  intent: string;
  name: string;
  value: (row: Row) => string;
  label: (row: Row) => string;
}): Column<Row> {
  return {
    key: "actions",
    header: <span className="sr-only">{m.app_ui_actions()}</span>,
    align: "right",
    cell: (row) => (
      <Form method="post">
        <input type="hidden" name={name} value={value(row)} />
        <button name="intent" value={intent} className="rounded p-1.5 text-red-600 hover:bg-red-50" aria-label={label(row)}>
          <Trash2 className="size-4" aria-hidden />
        </button>
      </Form>
    ),
  };
}
