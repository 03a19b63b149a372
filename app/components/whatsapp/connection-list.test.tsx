import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createMemoryRouter, RouterProvider } from "react-router";
import { ConnectionList, type ConnectionView } from "./connection-list";

function render(connections: ConnectionView[]) {
  // Inside the signed-in shell, whose loader gives what the member's role may do (an owner: every button).
  const router = createMemoryRouter(
    [
      {
        id: "routes/app/layout",
        path: "/",
        loader: () => ({ grants: ["whatsapp:manage"] }),
        children: [{ path: "*", element: <ConnectionList connections={connections} busy={false} redirectTo="/whatsapp" /> }],
      },
    ],
    { initialEntries: ["/whatsapp"], hydrationData: { loaderData: { "routes/app/layout": { grants: ["whatsapp:manage"] } } } },
  );
  return renderToStaticMarkup(<RouterProvider router={router} />);
}

const account: ConnectionView = {
  id: "6f1c2a4e-1d0b-4c8e-9a57-3c2b1e0d9f11",
  wabaId: "402762445595484",
  name: "Pwani Fish Traders",
  status: "connected",
  confirmedByMeta: true,
  numbers: [{ id: "n1", number: "+254741200300", verifiedName: "Pwani Fish", quality: "high", qualityEvent: null, registered: true }],
};

describe("ConnectionList", () => {
  it("says when Meta refused the account's access, since when and why, and what to do", () => {
    const html = render([
      { ...account, needsReconnection: { since: "2026-11-23T06:05:00.000Z", reason: "(#190) Invalid OAuth access token" } },
    ]);
    expect(html).toContain('role="alert"');
    expect(html).toContain("Needs reconnecting.");
    // Nairobi time, as every date the product shows.
    expect(html).toContain("23 Nov 2026, 09:05");
    expect(html).toContain("(#190) Invalid OAuth access token");
    expect(html).toContain("connect it again with the button above");
  });

  it("shows no notice while the access stands", () => {
    const html = render([{ ...account, needsReconnection: null }]);
    expect(html).not.toContain("Needs reconnecting");
    expect(html).toContain("+254741200300");
  });
});
