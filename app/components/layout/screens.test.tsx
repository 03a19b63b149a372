import { describe, expect, it } from "vitest";
import { renderToString } from "react-dom/server";
import { CrashScreen, describeError } from "./crash-screen";
import { FullScreenLoader, ShellLoading } from "./loaders";

describe("crash and loading screens (spec section 2)", () => {
  it("shows the crash screen with the error's message and a Reload Page link to the same page", () => {
    const html = renderToString(<CrashScreen detail={describeError(new Error("Hesabu haikupatikana"))} />);
    expect(html).toContain("Something went wrong.");
    expect(html).toContain("An unexpected error occurred in the application.");
    expect(html).toContain("Hesabu haikupatikana");
    expect(html).toMatch(/<a[^>]*href=""[^>]*>Reload Page<\/a>/);
  });

  it("describes thrown responses and unknown values", () => {
    expect(describeError({ status: 503, statusText: "Service Unavailable", internal: false, data: null })).toBe("503 Service Unavailable");
    expect(describeError("nope")).toBe("Unknown error");
  });

  it("names the product in the full-screen loader and shows the shell's Loading...", () => {
    const loader = renderToString(<FullScreenLoader />);
    expect(loader).toContain("Loading Jumbe...");
    expect(loader).toContain("Please wait while we prepare your experience");
    expect(renderToString(<ShellLoading />)).toContain("Loading...");
  });
});
