import { randomBytes } from "node:crypto";
import { OAuthGrants, type GrantsSnapshot } from "../oauth-grants";
import { StateFile } from "../state-file";

export type CellValue = string | number | boolean;

export interface Sheet {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  /** Rows of cells; "" is an empty cell. */
  rows: CellValue[][];
}

export interface Spreadsheet {
  spreadsheetId: string;
  title: string;
  /** The Google account whose Drive holds it. */
  owner: string;
  /** The app (client id) that created it through the API, if any. */
  createdBy: string | null;
  /** Opened with the app (Google Picker): with `drive.file` only such files and the app's own are reachable. */
  appAccess: boolean;
  createdAt: number;
  sheets: Sheet[];
}

/** A test Google account that can sign in on the consent page. */
export interface GoogleUser {
  email: string;
  name: string;
  /**
   * Whose it is: the consent page's `sandbox_user` (standing for the person signed in to Google, one
   * per Jumbe organisation) that made or first connected it; offered to that caller only. Absent: a
   * test account no one has connected yet, offered to anyone until someone does (issue 74).
   */
  owner?: string;
}

/** The owner of the demo business's account: never a caller's key, so no one else is offered it. */
export const DEMO_OWNER = "jumbe-demo";

interface Saved {
  version: 1;
  users: GoogleUser[];
  spreadsheets: Spreadsheet[];
  /** `account client` pairs that consented before (a refresh token then needs prompt=consent). */
  consents: string[];
  grants: GrantsSnapshot;
}

const isSaved = (value: unknown): value is Saved =>
  typeof value === "object" && value !== null && (value as Saved).version === 1 && Array.isArray((value as Saved).spreadsheets);

export const DEFAULT_ROWS = 1000;
export const DEFAULT_COLUMNS = 26;

const SEED_USERS: GoogleUser[] = [
  { email: "owner@dukabora.co.ke", name: "Duka Bora Owner" },
  { email: "admin@pwanitours.co.ke", name: "Pwani Tours Admin" },
];

const SEED_CUSTOMERS: CellValue[][] = [
  ["Name", "Phone", "Email"],
  ["Wanjiku Kamau", "0712 345 678", "wanjiku@example.com"],
  ["Brian Otieno", "+254722000111", "otieno@example.com"],
  ["Achieng Odhiambo", "254733123456", ""],
];

/** Everything the Google sandbox knows: accounts, their spreadsheets, consents and OAuth grants. */
export class GoogleState {
  users = new Map<string, GoogleUser>();
  spreadsheets = new Map<string, Spreadsheet>();
  consents = new Set<string>();
  /** PKCE challenges of the codes not yet redeemed (a code lives minutes: kept in memory only). */
  challenges = new Map<string, { challenge: string; method: "S256" | "plain" }>();
  private readonly file: StateFile<Saved>;

  constructor(
    readonly grants: OAuthGrants,
    private readonly now: () => number,
    statePath: string | undefined,
  ) {
    this.file = new StateFile(statePath, "google", () => this.snapshot());
    const saved = this.file.load(isSaved);
    if (saved) this.restore(saved);
    else this.seed();
  }

  changed() {
    this.file.changed();
  }

  close() {
    this.file.close();
  }

  addSpreadsheet(input: {
    /** A chosen id (the demo's); a new random one otherwise. */
    id?: string;
    title: string;
    owner: string;
    createdBy: string | null;
    appAccess: boolean;
    sheetTitles?: string[];
    rows?: CellValue[][];
  }): Spreadsheet {
    const titles = input.sheetTitles?.length ? input.sheetTitles : ["Sheet1"];
    const spreadsheet: Spreadsheet = {
      spreadsheetId: input.id ?? randomBytes(33).toString("base64url").slice(0, 44),
      title: input.title,
      owner: input.owner,
      createdBy: input.createdBy,
      appAccess: input.appAccess,
      createdAt: this.now(),
      sheets: titles.map((title, index) => ({
        sheetId: index === 0 ? 0 : 100_000 + index,
        title,
        rowCount: Math.max(DEFAULT_ROWS, index === 0 ? (input.rows?.length ?? 0) : 0),
        columnCount: DEFAULT_COLUMNS,
        rows: index === 0 ? (input.rows ?? []).map((r) => [...r]) : [],
      })),
    };
    this.spreadsheets.set(spreadsheet.spreadsheetId, spreadsheet);
    this.changed();
    return spreadsheet;
  }

  /** Whether this account already consented to this app (a new refresh token then needs prompt=consent). */
  consented(account: string, clientId: string) {
    return this.consents.has(`${account} ${clientId}`);
  }

  /** The accounts the consent page offers this caller: its own, and those no one has connected yet. */
  usersFor(caller: string | undefined): GoogleUser[] {
    return [...this.users.values()].filter((u) => u.owner === undefined || (caller !== undefined && u.owner === caller));
  }

  /** A fresh test account of the caller's ("Use another account" on the consent page). */
  newUserFor(caller: string | undefined): GoogleUser {
    let n = this.users.size + 1;
    while (this.users.has(`test${n}@sandbox.google.test`)) n++;
    const user: GoogleUser = {
      email: `test${n}@sandbox.google.test`,
      name: `Test account ${n}`,
      ...(caller === undefined ? {} : { owner: caller }),
    };
    this.users.set(user.email, user);
    this.changed();
    return user;
  }

  /** An account connected by a caller becomes theirs: no one else is offered it from then on. */
  claim(user: GoogleUser, caller: string | undefined) {
    if (caller === undefined || user.owner !== undefined) return;
    user.owner = caller;
    this.changed();
  }

  noteConsent(account: string, clientId: string) {
    this.consents.add(`${account} ${clientId}`);
    this.changed();
  }

  reset() {
    this.users.clear();
    this.spreadsheets.clear();
    this.consents.clear();
    this.challenges.clear();
    this.grants.reset();
    this.seed();
  }

  private seed() {
    for (const user of SEED_USERS) this.users.set(user.email, { ...user });
    this.addSpreadsheet({
      title: "Customers to import",
      owner: SEED_USERS[0]!.email,
      createdBy: null,
      // Typed by a person in Drive: the app reaches it only once it is chosen with the Picker.
      appAccess: false,
      rows: SEED_CUSTOMERS,
    });
  }

  private snapshot(): Saved {
    return {
      version: 1,
      users: [...this.users.values()],
      spreadsheets: [...this.spreadsheets.values()],
      consents: [...this.consents],
      grants: this.grants.snapshot(),
    };
  }

  private restore(saved: Saved) {
    for (const u of saved.users ?? []) this.users.set(u.email, u);
    for (const s of saved.spreadsheets) this.spreadsheets.set(s.spreadsheetId, s);
    for (const c of saved.consents ?? []) this.consents.add(c);
    this.grants.restore(saved.grants);
  }
}
