import { href, redirect } from "react-router";

// Spec section 2: any other path redirects to /.
export async function loader() {
  throw redirect(href("/"));
}

export async function action() {
  throw redirect(href("/"));
}
