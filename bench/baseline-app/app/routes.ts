import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  // /page?kb=N: a document with N kB (1000 bytes) of rows in its body, besides the shell.
  route("page", "routes/page.tsx"),
  // /json: a small object; /json?kb=N pads it to about N kB.
  route("json", "routes/json.ts"),
] satisfies RouteConfig;
