import { afterEach, describe, expect, it } from "vitest";
import { PRELOAD_HELPER } from "./module-preload";

interface FakeLink {
  rel?: string;
  href?: string;
  nonce?: string;
}

/** A document with a nonce'd script and a <head> that keeps what is appended to it. */
function fakeDocument(nonce: string | null) {
  const appended: FakeLink[] = [];
  return {
    appended,
    document: {
      querySelector: (selector: string) => (selector === "script[nonce]" && nonce ? { nonce } : null),
      createElement: (tag: string) => {
        expect(tag).toBe("link");
        return {} as FakeLink;
      },
      head: { append: (link: FakeLink) => appended.push(link) },
    },
  };
}

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
    expect(fake.appended).toEqual([
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
    expect(fake.appended).toEqual([{ rel: "modulepreload", href: "/assets/a.js" }]);
  });
});
