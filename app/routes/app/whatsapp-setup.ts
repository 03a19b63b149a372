import { redirect } from "react-router";

// Spec section 2: the callback's success leads to /whatsapp-setup, the route table to /whatsapp.
export function loader() {
  return redirect("/whatsapp");
}
