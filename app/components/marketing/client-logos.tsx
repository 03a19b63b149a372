import type { ReactNode } from "react";
import type { ClientId } from "./content";

/**
 * Wordmarks of the (fictional) client organisations, drawn as small inline SVGs: an emblem on the
 * left, the name and a descriptor on the right. Sized by attributes so nothing shifts while loading.
 */
const LOGOS: Record<ClientId, { name: string; line1: string; line2: string; color: string; emblem: ReactNode }> = {
  "mji-mpya": {
    name: "Mji Mpya County",
    line1: "MJI MPYA",
    line2: "COUNTY",
    color: "#1d4ed8",
    emblem: (
      <>
        <path d="M24 4 40 10v12c0 10-7 17-16 22C15 39 8 32 8 22V10Z" fill="#1d4ed8" />
        <path d="M16 31V21h16v10M14 21l10-6 10 6M20 31v-6h8v6" fill="none" stroke="#fff" strokeWidth="2.5" strokeLinejoin="round" />
      </>
    ),
  },
  taifa: {
    name: "Taifa Services Hub",
    line1: "TAIFA",
    line2: "SERVICES HUB",
    color: "#0f766e",
    emblem: (
      <>
        <circle cx="24" cy="24" r="20" fill="#0f766e" />
        <path d="m24 11 3.8 8.2 8.9 1-6.6 6 1.8 8.8L24 30.6 16.1 35l1.8-8.8-6.6-6 8.9-1Z" fill="#fff" />
      </>
    ),
  },
  mavuno: {
    name: "Mavuno Savings Bank",
    line1: "MAVUNO",
    line2: "SAVINGS BANK",
    color: "#b45309",
    emblem: (
      <>
        <rect x="4" y="4" width="40" height="40" rx="10" fill="#b45309" />
        <path d="M24 38V14" stroke="#fff" strokeWidth="2.5" strokeLinecap="round" />
        <g fill="#fff">
          <ellipse cx="19" cy="18" rx="3" ry="5.5" transform="rotate(-30 19 18)" />
          <ellipse cx="29" cy="18" rx="3" ry="5.5" transform="rotate(30 29 18)" />
          <ellipse cx="19" cy="27" rx="3" ry="5.5" transform="rotate(-30 19 27)" />
          <ellipse cx="29" cy="27" rx="3" ry="5.5" transform="rotate(30 29 27)" />
          <ellipse cx="24" cy="10" rx="2.6" ry="4.5" />
        </g>
      </>
    ),
  },
  ukarimu: {
    name: "Ukarimu Assurance",
    line1: "UKARIMU",
    line2: "ASSURANCE",
    color: "#be123c",
    emblem: (
      <>
        <path d="M4 26a20 20 0 0 1 40 0Z" fill="#be123c" />
        <path d="M24 26v12a4 4 0 0 1-8 0" fill="none" stroke="#be123c" strokeWidth="3" strokeLinecap="round" />
        <path d="M17 26a7 12 0 0 1 14 0" fill="none" stroke="#fff" strokeWidth="2" />
      </>
    ),
  },
  kilima: {
    name: "Kilima Microfinance",
    line1: "KILIMA",
    line2: "MICROFINANCE",
    color: "#15803d",
    emblem: (
      <>
        <path d="M2 40 18 12l16 28Z" fill="#15803d" />
        <path d="M20 40 33 18l13 22Z" fill="#22c55e" />
        <path d="m14 19 4-7 4 7-4-2Z" fill="#fff" />
      </>
    ),
  },
  savanna: {
    name: "Savanna Power & Water",
    line1: "SAVANNA",
    line2: "POWER & WATER",
    color: "#c2410c",
    emblem: (
      <>
        <circle cx="24" cy="22" r="11" fill="#f97316" />
        <path d="M24 4v5M8 12l4 3M40 12l-4 3M4 26h5M39 26h5" stroke="#c2410c" strokeWidth="3" strokeLinecap="round" />
        <path d="M4 33c7-4 13 4 20 0s13 4 20 0v11H4Z" fill="#c2410c" />
      </>
    ),
  },
  baraka: {
    name: "Baraka Health Network",
    line1: "BARAKA",
    line2: "HEALTH NETWORK",
    color: "#0369a1",
    emblem: (
      <>
        <rect x="4" y="4" width="40" height="40" rx="20" fill="#0369a1" />
        <path d="M20 12h8v8h8v8h-8v8h-8v-8h-8v-8h8Z" fill="#fff" />
      </>
    ),
  },
  ziwa: {
    name: "Ziwa Logistics",
    line1: "ZIWA",
    line2: "LOGISTICS",
    color: "#4338ca",
    emblem: (
      <>
        <rect x="4" y="4" width="40" height="40" rx="6" fill="#4338ca" />
        <path
          d="M10 20c4.7-4 9.3 4 14 0s9.3 4 14 0M10 30c4.7-4 9.3 4 14 0s9.3 4 14 0"
          fill="none"
          stroke="#fff"
          strokeWidth="3"
          strokeLinecap="round"
        />
      </>
    ),
  },
};

export function clientName(id: ClientId) {
  return LOGOS[id].name;
}

/** A client's logo. With `labelled` it is an image named after the client, otherwise decorative. */
export function ClientLogo({ id, labelled = false, className = "" }: { id: ClientId; labelled?: boolean; className?: string }) {
  const logo = LOGOS[id];
  const a11y = labelled ? { role: "img", "aria-label": logo.name } : { "aria-hidden": true };
  return (
    <svg viewBox="0 0 176 48" width="176" height="48" className={className} {...a11y}>
      {logo.emblem}
      <text x="54" y="24" fill="#1e293b" fontFamily="system-ui,sans-serif" fontSize="17" fontWeight="800" letterSpacing=".5">
        {logo.line1}
      </text>
      <text x="54" y="40" fill={logo.color} fontFamily="system-ui,sans-serif" fontSize="10" fontWeight="700" letterSpacing="1.2">
        {logo.line2}
      </text>
    </svg>
  );
}
