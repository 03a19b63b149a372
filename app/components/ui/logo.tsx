export function Logo({ className = "" }: { className?: string }) {
  return (
    <span className={`inline-flex items-center gap-2 font-bold text-slate-900 ${className}`}>
      <svg viewBox="0 0 32 32" className="size-8" aria-hidden>
        <rect width="32" height="32" rx="8" fill="#059669" />
        <path d="M9 10h14a2 2 0 0 1 2 2v7a2 2 0 0 1-2 2h-7l-5 4v-4H9a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2Z" fill="#fff" />
        <circle cx="12" cy="15.5" r="1.5" fill="#059669" />
        <circle cx="16" cy="15.5" r="1.5" fill="#059669" />
        <circle cx="20" cy="15.5" r="1.5" fill="#059669" />
      </svg>
      <span className="text-xl tracking-tight">Jumbe</span>
    </span>
  );
}
