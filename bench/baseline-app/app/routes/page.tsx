import { useLoaderData, type LoaderFunctionArgs } from "react-router";
import { bytesFrom } from "./kb";

// Rows of exactly ROW_BYTES bytes of HTML each (a list item with a link and a short text), so a
// page's element count grows with its size as a real page's does.
const ROW_BYTES = 100;

export function loader({ request }: LoaderFunctionArgs) {
  // Only the byte count travels in the loader data: the rows are rendered, not serialised twice.
  return { bytes: bytesFrom(request) };
}

export function meta() {
  return [{ title: "Baseline page" }];
}

function Row({ index }: { index: number }) {
  // <li class="r"><a href="/item/000001">Item 000001</a> <span>...</span></li>
  const id = String(index).padStart(6, "0");
  const head = `<li class="r"><a href="/item/${id}">Item ${id}</a> <span></span></li>`.length;
  return (
    <li className="r">
      <a href={`/item/${id}`}>{`Item ${id}`}</a> <span>{"x".repeat(ROW_BYTES - head)}</span>
    </li>
  );
}

export default function Page() {
  const { bytes } = useLoaderData<typeof loader>();
  const rows = Math.floor(bytes / ROW_BYTES);
  const rest = bytes - rows * ROW_BYTES;
  return (
    <main>
      <h1>Baseline page</h1>
      <ul>
        {Array.from({ length: rows }, (_, index) => (
          <Row key={index} index={index} />
        ))}
      </ul>
      <p>{"y".repeat(rest)}</p>
    </main>
  );
}
