/**
 * A message as the browser build has it (decision 072): its text is the page's, from the words file of
 * the page's language that the server names in the document's head (browser-words.ts). The same
 * inputs as Paraglide's functions; braces only ever mark an input (app/messages/messages.test.ts).
 */
declare global {
  // Set by the words file, before the page's code runs.
  var __jw: Record<string, string> | undefined;
}

const INPUT = /\{(\w+)\}/g;

export function word(key: string) {
  return (inputs?: Record<string, unknown>): string => {
    const text = globalThis.__jw?.[key];
    // A word the page's files lack is a fault of the build's record (browser-words.ts): said aloud
    // (the browser tests fail on any console error), and never shown as its id.
    if (text === undefined) {
      console.error(`Jumbe: the page has no word ${key}.`);
      return "";
    }
    return inputs ? text.replace(INPUT, (_, name: string) => String(inputs[name])) : text;
  };
}
