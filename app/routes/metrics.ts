import { data } from "react-router";

// Issue 19: built by this work in progress (the System tab's helper).
export function loader() {
  throw data("Not Found", { status: 404 });
}
