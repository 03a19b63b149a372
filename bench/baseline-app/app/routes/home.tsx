export function meta() {
  return [{ title: "Baseline" }];
}

export default function Home() {
  return (
    <main>
      <h1>Baseline</h1>
      <p>
        <a href="/page?kb=10">10 kB page</a> · <a href="/json">JSON</a>
      </p>
    </main>
  );
}
