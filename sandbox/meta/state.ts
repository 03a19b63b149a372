import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { randomInt } from "node:crypto";
import { businessDemoIds, businessDemoPin, businessDemoToken, type DemoConnection } from "./business-demo";
import { CONSOLE_DEMO_WABAS, consoleDemoIds, consoleDemoToken, consoleDemoTokenAccepted } from "./console-demo";
import type { TemplateComponent } from "./template-rules";
import type { ParameterFormat, ResolvedOptions, TemplateCategory, TemplateQualityScore, TemplateStatus } from "./types";
import {
  digitsOnly,
  formatDisplayNumber,
  isPlausiblePhone,
  newAccessToken,
  newAuthCode,
  newTemplateId,
  newTemplateNamespace,
  randomNumericId,
  stableNumericId,
} from "./util";

export interface Business {
  id: string;
  name: string;
  createdAt: number;
  demo?: boolean;
  /** One of the admin console's demo accounts (console-demo.ts): already connected, not offered in the dialog. */
  consoleDemo?: boolean;
  /** The demo business connected to Jumbe's demo tenant (business-demo.ts): not offered in the dialog. */
  connectedDemo?: boolean;
  /**
   * Who made it in the signup dialog (the dialog's `sandbox_user`, standing for the Facebook user
   * signed in to Meta's popup): the dialog offers its numbers to that user only.
   */
  owner?: string;
}

export interface Waba {
  id: string;
  businessId: string;
  name: string;
  timezoneId: string;
  namespace: string;
  createdAt: number;
}

/** UNKNOWN: a number Meta has not rated yet. */
export type QualityRating = "GREEN" | "YELLOW" | "RED" | "UNKNOWN";

export interface PhoneNumber {
  id: string;
  wabaId: string;
  /** Formatted: "+254 711 000 001". */
  displayPhoneNumber: string;
  verifiedName: string;
  qualityRating: QualityRating;
  status: "PENDING" | "CONNECTED" | "DISCONNECTED";
  platformType: "NOT_APPLICABLE" | "CLOUD_API";
  throughput: "STANDARD" | "HIGH";
  messagingLimit: string;
  /** Two-step verification PIN, set by the first successful registration. */
  pin: string | null;
  /** Times (ms) of register/deregister calls, for the 10-per-72-hours limit. */
  registrationCalls: number[];
  registeredAt: number | null;
  createdAt: number;
}

export interface Subscription {
  wabaId: string;
  overrideCallbackUri?: string;
  subscribedAt: number;
}

export interface TokenRecord {
  token: string;
  businessId: string;
  wabaIds: string[];
  userId: string;
  issuedAt: number;
  /** ms; 0 = never. */
  expiresAt: number;
}

export interface CodeRecord {
  businessId: string;
  wabaIds: string[];
  issuedAt: number;
  used: boolean;
}

export interface Template {
  id: string;
  wabaId: string;
  /** Creation order, for the list's cursors. */
  seq: number;
  name: string;
  language: string;
  category: TemplateCategory;
  /** Set when Meta re-categorised the template. */
  previousCategory: TemplateCategory | null;
  parameterFormat: ParameterFormat;
  components: TemplateComponent[];
  status: TemplateStatus;
  /** "NONE" unless rejected. */
  rejectedReason: string;
  rejectionInfo: { reason: string; recommendation: string } | null;
  qualityScore: TemplateQualityScore;
  /** When the current review began (ms): a PENDING template is decided the review delay after it. */
  submittedAt: number;
  createdAt: number;
  updatedAt: number;
}

/** A Resumable Upload API session (its bytes are kept in memory by the UploadDesk). */
export interface Upload {
  /** The id's key: the session is `upload:<key>?sig=<sig>`. */
  key: string;
  sig: string;
  /** The system user whose token opened it. */
  userId: string;
  fileName: string;
  fileType: string;
  fileLength: number;
  /** Bytes received so far. */
  offset: number;
  /** "4::…": issued when the last byte arrived. */
  handle: string | null;
  /** The magic file name "cut-once": the first send is cut short. */
  cutOnce: boolean;
  createdAt: number;
  completedAt: number | null;
}

/** An approved template's deletion: its name is held for 30 days. */
export interface DeletedTemplateName {
  wabaId: string;
  name: string;
  language: string;
  deletedAt: number;
}

export const NAME_HOLD_MS = 30 * 24 * 60 * 60 * 1000;

interface PersistedState {
  version: 1;
  partnerBusinessId: string;
  businesses: Business[];
  wabas: Waba[];
  phoneNumbers: PhoneNumber[];
  subscriptions: Subscription[];
  tokens: TokenRecord[];
  /** Absent in state files from before templates: none. */
  templates?: Template[];
  deletedTemplateNames?: DeletedTemplateName[];
  /** Absent in state files from before uploads: none. */
  uploads?: Upload[];
  /** Absent in state files from before catalogs: none. */
  catalogs?: Catalog[];
  commerceSettings?: CommerceSettings[];
}

/** A product item of a commerce catalog, with the /products edge's fields. */
export interface CatalogProduct {
  id: string;
  retailerId: string;
  name: string;
  description: string;
  /** Minor units (cents). */
  price: number;
  currency: string;
  imageUrl: string;
  availability: string;
  url?: string;
}

/** A commerce catalog owned by a business, connected to some of its WABAs. */
export interface Catalog {
  id: string;
  businessId: string;
  name: string;
  vertical: string;
  wabaIds: string[];
  products: CatalogProduct[];
  createdAt: number;
  /** items_batch calls, newest last (the last 50), for check_batch_request_status. Absent before batches. */
  batches?: CatalogBatch[];
}

/** One items_batch call: its handle and the requests it refused, by their index in `requests`. */
export interface CatalogBatch {
  handle: string;
  createdAt: number;
  requests: number;
  errors: { line: number; id: string; message: string }[];
}

/** A phone number's whatsapp_commerce_settings (Meta's defaults: cart on, catalog icon hidden). */
export interface CommerceSettings {
  phoneNumberId: string;
  id: string;
  isCartEnabled: boolean;
  isCatalogVisible: boolean;
}

export const DEMO = {
  businessName: "Jumbe Demo Business",
  wabaName: "Jumbe Demo Business",
  verifiedName: "Jumbe Demo",
  displayPhoneNumber: "+254 711 000 001",
};

const SAVE_DEBOUNCE_MS = 100;

/** Businesses, WABAs, numbers, subscriptions, codes and tokens; optionally persisted to a JSON file. */
export class SandboxStore {
  partnerBusinessId: string;
  readonly businesses = new Map<string, Business>();
  readonly wabas = new Map<string, Waba>();
  readonly phoneNumbers = new Map<string, PhoneNumber>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly tokens = new Map<string, TokenRecord>();
  readonly codes = new Map<string, CodeRecord>();
  readonly templates = new Map<string, Template>();
  readonly uploads = new Map<string, Upload>();
  readonly catalogs = new Map<string, Catalog>();
  readonly commerceSettings = new Map<string, CommerceSettings>();
  private deletedNames: DeletedTemplateName[] = [];
  private templateSeq = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: ResolvedOptions) {
    this.partnerBusinessId = stableNumericId(`${options.appId}:partner-business`);
    if (!this.load()) this.seedDemo();
  }

  private get now() {
    return this.options.now();
  }

  // ---- persistence ---------------------------------------------------------------------------

  private load(): boolean {
    const file = this.options.statePath;
    if (!file || !existsSync(file)) return false;
    let parsed: PersistedState;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8")) as PersistedState;
      if (parsed?.version !== 1 || !Array.isArray(parsed.businesses)) throw new Error("unknown format");
    } catch (error) {
      // Keep the unreadable file for inspection and start afresh rather than refuse to start.
      const aside = `${file}.unreadable-${Date.now()}`;
      try {
        renameSync(file, aside);
      } catch {
        /* ignore */
      }
      console.warn(`[meta sandbox] ignoring unreadable state file ${file} (moved to ${aside}):`, error);
      return false;
    }
    this.partnerBusinessId = parsed.partnerBusinessId || this.partnerBusinessId;
    for (const b of parsed.businesses) this.businesses.set(b.id, b);
    for (const w of parsed.wabas ?? []) this.wabas.set(w.id, w);
    for (const p of parsed.phoneNumbers ?? []) this.phoneNumbers.set(p.id, { ...p, registrationCalls: p.registrationCalls ?? [] });
    for (const s of parsed.subscriptions ?? []) this.subscriptions.set(s.wabaId, s);
    for (const t of parsed.tokens ?? []) if (!t.expiresAt || t.expiresAt > this.now) this.tokens.set(t.token, t);
    for (const t of parsed.templates ?? []) this.templates.set(t.id, t);
    for (const u of parsed.uploads ?? []) this.uploads.set(u.key, u);
    for (const c of parsed.catalogs ?? []) this.catalogs.set(c.id, c);
    for (const c of parsed.commerceSettings ?? []) this.commerceSettings.set(c.phoneNumberId, c);
    this.templateSeq = Math.max(0, ...[...this.templates.values()].map((t) => t.seq));
    this.deletedNames = parsed.deletedTemplateNames ?? [];
    if (![...this.businesses.values()].some((b) => b.demo)) this.seedDemo();
    // A state file from before the console's demo accounts (or from a sandbox without them) gains them.
    else this.seedConsoleDemo();
    return true;
  }

  private snapshot(): PersistedState {
    const now = this.now;
    return {
      version: 1,
      partnerBusinessId: this.partnerBusinessId,
      businesses: [...this.businesses.values()],
      wabas: [...this.wabas.values()],
      phoneNumbers: [...this.phoneNumbers.values()],
      subscriptions: [...this.subscriptions.values()],
      tokens: [...this.tokens.values()].filter((t) => !t.expiresAt || t.expiresAt > now),
      templates: [...this.templates.values()],
      deletedTemplateNames: this.heldNames(),
      uploads: [...this.uploads.values()],
      catalogs: [...this.catalogs.values()],
      commerceSettings: [...this.commerceSettings.values()],
    };
  }

  /** Schedules a debounced save; every mutation calls this. */
  changed() {
    if (!this.options.statePath || this.closed) return;
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      try {
        this.saveNow();
      } catch (error) {
        // A failed write must not crash the app; the next change tries again.
        console.warn(`[meta sandbox] could not write ${this.options.statePath}:`, error);
      }
    }, SAVE_DEBOUNCE_MS);
  }

  /** Writes the state file now: a temporary file beside it, then rename (atomic on one filesystem). */
  saveNow() {
    const file = this.options.statePath;
    if (!file) return;
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomInt(1e9)}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.snapshot(), null, 2), { mode: 0o600 });
    renameSync(tmp, file);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.saveNow();
  }

  // ---- business objects ----------------------------------------------------------------------

  /**
   * Forgets everything and recreates the demo business with its stable ids (and, with
   * `consoleDemo`, the admin console's demo accounts with theirs and their tokens).
   */
  reset() {
    this.businesses.clear();
    this.wabas.clear();
    this.phoneNumbers.clear();
    this.subscriptions.clear();
    this.tokens.clear();
    this.codes.clear();
    this.templates.clear();
    this.uploads.clear();
    this.catalogs.clear();
    this.commerceSettings.clear();
    this.deletedNames = [];
    this.seedDemo();
  }

  private seedDemo() {
    const { businessId, wabaId, phoneNumberId: phoneId } = businessDemoIds(this.options.appId);
    this.businesses.set(businessId, { id: businessId, name: DEMO.businessName, createdAt: this.now, demo: true });
    this.wabas.set(wabaId, {
      id: wabaId,
      businessId,
      name: DEMO.wabaName,
      timezoneId: "1",
      namespace: newTemplateNamespace(),
      createdAt: this.now,
    });
    this.phoneNumbers.set(phoneId, this.newNumber(phoneId, wabaId, DEMO.displayPhoneNumber, DEMO.verifiedName));
    this.seedConsoleDemo();
    this.changed();
  }

  /**
   * With `consoleDemo`: the admin console's demo accounts (console-demo.ts) as Jumbe's demo seed
   * stores them: business, WABA (subscribed unless disconnected), registered numbers with their
   * quality and tier, and a never-expiring token for each but the refused one. Adds only what is
   * missing, so a loaded state file keeps its changes.
   */
  private seedConsoleDemo() {
    if (!this.options.consoleDemo) return;
    const appId = this.options.appId;
    for (const account of CONSOLE_DEMO_WABAS) {
      const ids = consoleDemoIds(appId, account);
      if (this.wabas.has(ids.wabaId)) continue;
      const at = this.now - account.connectedDaysAgo * 24 * 60 * 60 * 1000;
      this.businesses.set(ids.businessId, { id: ids.businessId, name: account.business, createdAt: at, consoleDemo: true });
      this.wabas.set(ids.wabaId, {
        id: ids.wabaId,
        businessId: ids.businessId,
        name: account.business,
        timezoneId: "1",
        namespace: newTemplateNamespace(),
        createdAt: at,
      });
      account.numbers.forEach((n, i) => {
        const id = ids.phoneNumberIds[i]!;
        const number = this.newNumber(id, ids.wabaId, n.display, n.name);
        Object.assign(number, {
          qualityRating: n.quality,
          messagingLimit: n.limit,
          status: "CONNECTED",
          platformType: "CLOUD_API",
          registeredAt: at,
        });
        this.phoneNumbers.set(id, number);
      });
      if (account.state !== "disconnected") this.subscriptions.set(ids.wabaId, { wabaId: ids.wabaId, subscribedAt: at });
      if (consoleDemoTokenAccepted(account)) {
        const token = consoleDemoToken(appId, account);
        this.tokens.set(token, {
          token,
          businessId: ids.businessId,
          wabaIds: [ids.wabaId],
          userId: stableNumericId(`${appId}:system-user:${ids.businessId}`),
          issuedAt: at,
          expiresAt: 0,
        });
      }
    }
    this.changed();
  }

  /**
   * The demo business as Jumbe's demo seed stores it (business-demo.ts): named as the tenant, its
   * number registered with the derived PIN, its WABA subscribed, the derived token accepted. Adds only
   * what is missing, so a loaded state file keeps its changes. The templates are the TemplateDesk's.
   */
  connectDemo(demo: DemoConnection) {
    const appId = this.options.appId;
    const ids = businessDemoIds(appId);
    const business = this.businesses.get(ids.businessId);
    const waba = this.wabas.get(ids.wabaId);
    const phone = this.phoneNumbers.get(ids.phoneNumberId);
    if (!business || !waba || !phone) return;
    business.name = demo.businessName;
    business.connectedDemo = true;
    waba.name = demo.businessName;
    phone.verifiedName = demo.verifiedName;
    if (phone.status !== "CONNECTED")
      Object.assign(phone, {
        status: "CONNECTED",
        platformType: "CLOUD_API",
        messagingLimit: "TIER_1K",
        registeredAt: this.now,
        pin: businessDemoPin(appId),
      });
    if (!this.subscriptions.has(waba.id)) this.subscriptions.set(waba.id, { wabaId: waba.id, subscribedAt: this.now });
    const token = businessDemoToken(appId);
    if (!this.tokens.has(token))
      this.tokens.set(token, {
        token,
        businessId: business.id,
        wabaIds: [waba.id],
        userId: stableNumericId(`${appId}:system-user:${business.id}`),
        issuedAt: this.now,
        expiresAt: 0,
      });
    this.changed();
    return ids;
  }

  private newNumber(id: string, wabaId: string, display: string, verifiedName: string): PhoneNumber {
    return {
      id,
      wabaId,
      displayPhoneNumber: formatDisplayNumber(display),
      verifiedName,
      qualityRating: "GREEN",
      status: "PENDING",
      platformType: "NOT_APPLICABLE",
      throughput: "STANDARD",
      messagingLimit: "TIER_250",
      pin: null,
      registrationCalls: [],
      registeredAt: null,
      createdAt: this.now,
    };
  }

  /** A new id for a catalog or a product item: free among every object the sandbox holds. */
  newObjectId(): string {
    return this.freshId();
  }

  private freshId(): string {
    for (;;) {
      const id = randomNumericId();
      if (this.isFree(id)) return id;
    }
  }

  private isFree(id: string) {
    return (
      !this.businesses.has(id) &&
      !this.wabas.has(id) &&
      !this.phoneNumbers.has(id) &&
      !this.templates.has(id) &&
      !this.catalogs.has(id) &&
      ![...this.catalogs.values()].some((c) => c.products.some((p) => p.id === id)) &&
      id !== this.partnerBusinessId
    );
  }

  // ---- templates -----------------------------------------------------------------------------

  /** A new template's id (a safe integer: webhooks carry it as a JSON number) and creation order. */
  newTemplateKeys(): { id: string; seq: number } {
    for (;;) {
      const id = newTemplateId();
      if (this.isFree(id)) return { id, seq: ++this.templateSeq };
    }
  }

  /** Approved templates deleted in the last 30 days, whose names are held. */
  heldNames(): DeletedTemplateName[] {
    const horizon = this.now - NAME_HOLD_MS;
    this.deletedNames = this.deletedNames.filter((d) => d.deletedAt > horizon);
    return [...this.deletedNames];
  }

  holdName(entry: DeletedTemplateName) {
    this.deletedNames.push(entry);
    this.changed();
  }

  private numberInUse(display: string) {
    const digits = digitsOnly(display);
    return [...this.phoneNumbers.values()].some((p) => digitsOnly(p.displayPhoneNumber) === digits);
  }

  private freshKenyanNumber(): string {
    for (;;) {
      const candidate = `2547${String(randomInt(10_000_000, 100_000_000))}`;
      if (!this.numberInUse(candidate)) return formatDisplayNumber(candidate);
    }
  }

  /** Checks a requested display number; throws a readable Error. */
  checkNewNumber(display: string | undefined) {
    if (display === undefined || display.trim() === "") return;
    if (!isPlausiblePhone(display)) throw new Error(`"${display}" is not a phone number (8 to 15 digits with the country code).`);
    if (this.numberInUse(display)) throw new Error(`${formatDisplayNumber(display)} already belongs to a test business.`);
  }

  createTestBusiness(
    input: {
      businessName?: string;
      wabaName?: string;
      verifiedName?: string;
      displayPhoneNumber?: string;
      registered?: boolean;
      owner?: string;
    } = {},
  ) {
    const businessName = input.businessName?.trim() || `Test Business ${this.businesses.size + 1}`;
    this.checkNewNumber(input.displayPhoneNumber);
    const businessId = this.freshId();
    this.businesses.set(businessId, {
      id: businessId,
      name: businessName,
      createdAt: this.now,
      ...(input.owner ? { owner: input.owner } : {}),
    });
    const wabaId = this.freshId();
    this.wabas.set(wabaId, {
      id: wabaId,
      businessId,
      name: input.wabaName?.trim() || businessName,
      timezoneId: "1",
      namespace: newTemplateNamespace(),
      createdAt: this.now,
    });
    const number = this.addPhoneNumber(wabaId, {
      verifiedName: input.verifiedName?.trim() || businessName,
      displayPhoneNumber: input.displayPhoneNumber,
      registered: input.registered,
    });
    return { businessId, wabaId, phoneNumberId: number.phoneNumberId, displayPhoneNumber: number.displayPhoneNumber };
  }

  addPhoneNumber(wabaId: string, input: { verifiedName?: string; displayPhoneNumber?: string; registered?: boolean } = {}) {
    const waba = this.wabas.get(wabaId);
    if (!waba) throw new Error(`Unknown WABA ${wabaId}.`);
    this.checkNewNumber(input.displayPhoneNumber);
    const display = input.displayPhoneNumber?.trim() ? formatDisplayNumber(input.displayPhoneNumber) : this.freshKenyanNumber();
    const id = this.freshId();
    const number = this.newNumber(id, wabaId, display, input.verifiedName?.trim() || waba.name);
    // Registered already (tests of sending): as a successful POST /{phone}/register leaves it, without a PIN.
    if (input.registered) Object.assign(number, { status: "CONNECTED", platformType: "CLOUD_API", registeredAt: this.now });
    this.phoneNumbers.set(id, number);
    this.changed();
    return { phoneNumberId: id, displayPhoneNumber: display };
  }

  issueCode(input: { businessId: string; wabaIds: string[] }): string {
    if (!this.businesses.has(input.businessId)) throw new Error(`Unknown business ${input.businessId}.`);
    if (!Array.isArray(input.wabaIds) || input.wabaIds.length === 0) throw new Error("issueCode needs at least one WABA id.");
    for (const wabaId of input.wabaIds) {
      const waba = this.wabas.get(wabaId);
      if (!waba) throw new Error(`Unknown WABA ${wabaId}.`);
      if (waba.businessId !== input.businessId) throw new Error(`WABA ${wabaId} does not belong to business ${input.businessId}.`);
    }
    this.pruneCodes();
    const code = newAuthCode();
    this.codes.set(code, { businessId: input.businessId, wabaIds: [...new Set(input.wabaIds)], issuedAt: this.now, used: false });
    return code;
  }

  /** Codes are kept a while after expiry so a late exchange still reads "expired", not "unknown". */
  private pruneCodes() {
    const horizon = this.now - Math.max(this.options.codeTtlMs * 10, 10 * 60_000);
    for (const [code, record] of this.codes) if (record.issuedAt < horizon) this.codes.delete(code);
  }

  issueToken(code: CodeRecord): TokenRecord {
    const ttl = this.options.tokenTtlSeconds;
    const record: TokenRecord = {
      token: newAccessToken(),
      businessId: code.businessId,
      wabaIds: code.wabaIds,
      userId: stableNumericId(`${this.options.appId}:system-user:${code.businessId}`),
      issuedAt: this.now,
      expiresAt: ttl > 0 ? this.now + ttl * 1000 : 0,
    };
    this.tokens.set(record.token, record);
    this.changed();
    return record;
  }

  /** Public view for the console and GET control/state: no PINs, no tokens, no codes. */
  publicState() {
    const now = this.now;
    return {
      partnerBusinessId: this.partnerBusinessId,
      businesses: [...this.businesses.values()].map((b) => ({ id: b.id, name: b.name, demo: !!b.demo })),
      wabas: [...this.wabas.values()].map((w) => ({
        id: w.id,
        businessId: w.businessId,
        name: w.name,
        subscribed: this.subscriptions.has(w.id),
      })),
      phoneNumbers: [...this.phoneNumbers.values()].map((p) => ({
        id: p.id,
        wabaId: p.wabaId,
        displayPhoneNumber: p.displayPhoneNumber,
        verifiedName: p.verifiedName,
        status: p.status,
        platformType: p.platformType,
        qualityRating: p.qualityRating,
        messagingLimit: p.messagingLimit,
        throughput: p.throughput,
        registered: p.status === "CONNECTED",
        registeredAt: p.registeredAt ? new Date(p.registeredAt).toISOString() : null,
        hasPin: p.pin !== null,
        registrationCallsLast72h: p.registrationCalls.filter((t) => t > now - REGISTRATION_WINDOW_MS).length,
      })),
      subscriptions: [...this.subscriptions.values()].map((s) => ({
        wabaId: s.wabaId,
        overrideCallbackUri: s.overrideCallbackUri ?? null,
        subscribedAt: new Date(s.subscribedAt).toISOString(),
      })),
      activeTokens: [...this.tokens.values()].filter((t) => !t.expiresAt || t.expiresAt > now).length,
    };
  }
}

export const REGISTRATION_WINDOW_MS = 72 * 60 * 60 * 1000;
export const REGISTRATION_LIMIT = 10;
