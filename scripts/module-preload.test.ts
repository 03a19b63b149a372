import { afterEach, describe, expect, it } from "vitest";
import { PRELOAD_HELPER } from "./module-preload";

interface FakeLink {
  rel?: string;
  href?: string;
  nonce?: string;
  onload?: () => void;
}

/** A document with a nonce'd script, the stylesheets `linked`, and a <head> that keeps what is appended to it. */
function fakeDocument(nonce: string | null, linked: string[] = []) {
  const appended: FakeLink[] = [];
  return {
    appended,
    document: {
      querySelector: (selector: string) => {
        if (selector === "script[nonce]") return nonce ? { nonce } : null;
        return linked.some((href) => selector === `link[rel="stylesheet"][href="${href}"]`) ? {} : null;
      },
      createElement: (tag: string) => {
        expect(tag).toBe("link");
        return {} as FakeLink;
      },
      head: { append: (link: FakeLink) => appended.push(link) },
    },
  };
}

const plain = (links: FakeLink[]) => links.map(({ rel, href, nonce }) => ({ rel, href, ...(nonce ? { nonce } : {}) }));

async function helper() {
  // A fresh module each time: its memory of what it preloaded starts empty.
  const source = `${PRELOAD_HELPER}\n// ${Math.random()}`;
  const module = (await import(/* @vite-ignore */ `data:text/javascript,${encodeURIComponent(source)}`)) as {
    __vitePreload: (load: () => Promise<unknown>, deps?: string[]) => Promise<unknown>;
  };
  return module.__vitePreload;
}

const realDocument = (globalThis as { document?: unknown }).document;
afterEach(() => {
  (globalThis as { document?: unknown }).document = realDocument;
});

describe("the browser build's preload helper (decision 116)", () => {
  it("preloads each file a lazy chunk needs once, with the page's nonce, then imports it", async () => {
    const fake = fakeDocument("n0nce");
    (globalThis as { document?: unknown }).document = fake.document;
    const preload = await helper();
    const loaded = await preload(async () => "the module", ["assets/dialog-1.js", "assets/fields-2.js"]);
    expect(loaded).toBe("the module");
    await preload(async () => "again", ["assets/dialog-1.js"]);
    expect(plain(fake.appended)).toEqual([
      { rel: "modulepreload", href: "/assets/dialog-1.js", nonce: "n0nce" },
      { rel: "modulepreload", href: "/assets/fields-2.js", nonce: "n0nce" },
    ]);
  });

  it("imports without preloads when there is nothing to preload, and a failed import still fails", async () => {
    const fake = fakeDocument(null);
    (globalThis as { document?: unknown }).document = fake.document;
    const preload = await helper();
    expect(await preload(async () => 1)).toBe(1);
    await expect(preload(() => Promise.reject(new Error("offline")), ["assets/a.js"])).rejects.toThrow("offline");
    expect(plain(fake.appended)).toEqual([{ rel: "modulepreload", href: "/assets/a.js" }]);
  });

  it("links a stylesheet the page lacks and imports once it has loaded; one the page has is left alone", async () => {
    const fake = fakeDocument("n0nce", ["/assets/shell.css"]);
    (globalThis as { document?: unknown }).document = fake.document;
    const preload = await helper();
    let imported = false;
    const loading = preload(async () => (imported = true), ["assets/shell.css", "assets/map.css", "assets/map.js"]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The script is asked for at once; the import waits for the stylesheet (Vite's helper does the same).
    expect(plain(fake.appended)).toEqual([
      { rel: "stylesheet", href: "/assets/map.css", nonce: "n0nce" },
      { rel: "modulepreload", href: "/assets/map.js", nonce: "n0nce" },
    ]);
    expect(imported).toBe(false);
    fake.appended[0]!.onload!();
    await loading;
    expect(imported).toBe(true);
  });
});
