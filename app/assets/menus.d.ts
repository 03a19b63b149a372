// The types of menus.js, a plain browser module (bundled into the app, served as written to pages without React).
export function watchMenus(): void;
