import { OAuthGrants, type GrantsSnapshot } from "../oauth-grants";
import { StateFile } from "../state-file";

/** A test HubSpot account ("portal", its Hub ID) a user can install the app into. */
export interface Portal {
  hubId: number;
  name: string;
  domain: string;
  /** The HubSpot user who installs apps there. */
  user: string;
  userId: number;
  /**
   * Whose it is: the install page's `sandbox_user` (standing for the HubSpot user signed in, one per
   * Jumbe organisation) that made or first connected it; offered to that caller only. Absent: a test
   * portal no one has connected yet, offered to anyone until someone does (issue 74).
   */
  owner?: string;
}

/** The owner of the demo business's portal: never a caller's key, so no one else is offered it. */
export const DEMO_OWNER = "jumbe-demo";

export interface CrmRecord {
  id: string;
  properties: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

export interface Contact extends CrmRecord {
  hubId: number;
}

export interface Communication extends CrmRecord {
  hubId: number;
  /** Contacts it is associated with (type 81, communication to contact). */
  contactIds: string[];
}

export interface ContactList {
  listId: string;
  hubId: number;
  name: string;
  processingType: "MANUAL" | "DYNAMIC" | "SNAPSHOT";
  createdAt: number;
  updatedAt: number;
  members: { recordId: string; addedAt: number }[];
}

/** The CRM objects whose properties a portal keeps (sandbox/hubspot/properties.ts serves them). */
export type ObjectType = "contacts" | "communications";

export interface PropertyOption {
  label: string;
  value: string;
  displayOrder: number;
  hidden: boolean;
  description?: string;
}

export interface PropertyDefinition {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  options: PropertyOption[];
  displayOrder: number;
  hasUniqueValue: boolean;
  hidden: boolean;
  formField: boolean;
  /** HubSpot's own (not archivable); false for an app's or a user's. */
  hubspotDefined: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface PropertyGroup {
  name: string;
  label: string;
  displayOrder: number;
}

/** An app's (or a user's) property or group in one portal. */
export interface CustomProperty extends PropertyDefinition {
  hubId: number;
  objectType: ObjectType;
}
export interface CustomGroup extends PropertyGroup {
  hubId: number;
  objectType: ObjectType;
}

interface Saved {
  version: 1;
  nextId: number;
  portals: Portal[];
  contacts: Contact[];
  communications: Communication[];
  lists: ContactList[];
  grants: GrantsSnapshot;
  /** The portals' own properties and groups (HubSpot's are not stored); absent in older files. */
  properties?: CustomProperty[];
  groups?: CustomGroup[];
  /** A portal's custom-property limit set through the control API (HubSpot's default 1,000). */
  propertyLimits?: Record<string, number>;
}

const isSaved = (value: unknown): value is Saved =>
  typeof value === "object" && value !== null && (value as Saved).version === 1 && Array.isArray((value as Saved).portals);

/** The test portals the sandbox starts with: one with customers and a list, one empty. */
const SEED_PORTALS: Portal[] = [
  { hubId: 14500001, name: "Duka Bora CRM", domain: "duka-bora.hubspot.test", user: "owner@dukabora.co.ke", userId: 7100001 },
  { hubId: 14500002, name: "Pwani Tours CRM", domain: "pwani-tours.hubspot.test", user: "admin@pwanitours.co.ke", userId: 7100002 },
];

const SEED_CONTACTS: Record<string, string>[] = [
  { email: "wanjiku@example.com", firstname: "Wanjiku", lastname: "Kamau", phone: "+254712345678" },
  { email: "otieno@example.com", firstname: "Brian", lastname: "Otieno", phone: "0722 000 111" },
  { email: "achieng@example.com", firstname: "Achieng", lastname: "Odhiambo", mobilephone: "254733123456" },
  { email: "mwangi@example.com", firstname: "Peter", lastname: "Mwangi" },
];

/** Everything the HubSpot sandbox knows: portals, their CRM records and lists, and the OAuth grants. */
export class HubspotState {
  portals = new Map<number, Portal>();
  contacts = new Map<string, Contact>();
  communications = new Map<string, Communication>();
  lists = new Map<string, ContactList>();
  properties: CustomProperty[] = [];
  groups: CustomGroup[] = [];
  propertyLimits = new Map<number, number>();
  private nextId = 1001;
  private readonly file: StateFile<Saved>;

  constructor(
    readonly grants: OAuthGrants,
    private readonly now: () => number,
    statePath: string | undefined,
  ) {
    this.file = new StateFile(statePath, "hubspot", () => this.snapshot());
    const saved = this.file.load(isSaved);
    if (saved) this.restore(saved);
    else this.seed();
  }

  newId(): string {
    return String(this.nextId++);
  }

  changed() {
    this.file.changed();
  }

  close() {
    this.file.close();
  }

  portal(hubId: number) {
    return this.portals.get(hubId);
  }

  /** The portals the install page offers this caller: its own, and those no one has connected yet. */
  portalsFor(caller: string | undefined): Portal[] {
    return [...this.portals.values()].filter((p) => p.owner === undefined || (caller !== undefined && p.owner === caller));
  }

  /** A fresh, empty test portal of the caller's ("Create a new test account" on the install page). */
  newPortalFor(caller: string | undefined): Portal {
    const hubId = Math.max(14500000, ...this.portals.keys()) + 1;
    const portal: Portal = {
      hubId,
      name: `Test portal ${hubId}`,
      domain: `portal-${hubId}.hubspot.test`,
      user: `owner@portal-${hubId}.hubspot.test`,
      userId: 7100000 + (hubId % 100000),
      ...(caller === undefined ? {} : { owner: caller }),
    };
    this.portals.set(hubId, portal);
    this.changed();
    return portal;
  }

  /** A portal connected by a caller becomes theirs: no one else is offered it from then on. */
  claim(portal: Portal, caller: string | undefined) {
    if (caller === undefined || portal.owner !== undefined) return;
    portal.owner = caller;
    this.changed();
  }

  addPortal(name: string): Portal {
    const hubId = Math.max(14500000, ...this.portals.keys()) + 1;
    const slug =
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "") || "portal";
    const portal = { hubId, name, domain: `${slug}.hubspot.test`, user: `owner@${slug}.test`, userId: 7100000 + (hubId % 100000) };
    this.portals.set(hubId, portal);
    this.changed();
    return portal;
  }

  contactsOf(hubId: number): Contact[] {
    return [...this.contacts.values()].filter((c) => c.hubId === hubId);
  }

  contactByEmail(hubId: number, email: string): Contact | undefined {
    const wanted = email.trim().toLowerCase();
    return this.contactsOf(hubId).find((c) => (c.properties.email ?? "").toLowerCase() === wanted);
  }

  contact(hubId: number, id: string): Contact | undefined {
    const found = this.contacts.get(id);
    return found && found.hubId === hubId ? found : undefined;
  }

  /** A contact with HubSpot's automatic properties; the caller has checked the e-mail is free. */
  addContact(hubId: number, properties: Record<string, string>): Contact {
    const at = this.now();
    const id = this.newId();
    const contact: Contact = { id, hubId, properties: { ...withoutEmpty(properties) }, createdAt: at, updatedAt: at };
    this.contacts.set(id, contact);
    this.changed();
    return contact;
  }

  updateContact(contact: Contact, properties: Record<string, string>) {
    for (const [name, value] of Object.entries(properties)) {
      if (value === "") delete contact.properties[name];
      else contact.properties[name] = value;
    }
    contact.updatedAt = this.now();
    this.changed();
  }

  /** Archives a contact: gone from reads, searches and lists (HubSpot keeps it 90 days to restore; the sandbox does not). */
  deleteContact(contact: Contact) {
    this.contacts.delete(contact.id);
    for (const list of this.listsOf(contact.hubId)) list.members = list.members.filter((m) => m.recordId !== contact.id);
    this.changed();
  }

  customProperties(hubId: number, objectType: ObjectType): CustomProperty[] {
    return this.properties.filter((p) => p.hubId === hubId && p.objectType === objectType);
  }

  customGroups(hubId: number, objectType: ObjectType): CustomGroup[] {
    return this.groups.filter((g) => g.hubId === hubId && g.objectType === objectType);
  }

  addProperty(property: CustomProperty) {
    this.properties.push(property);
    this.changed();
  }

  removeProperty(hubId: number, objectType: ObjectType, name: string) {
    const before = this.properties.length;
    this.properties = this.properties.filter((p) => !(p.hubId === hubId && p.objectType === objectType && p.name === name));
    this.changed();
    return this.properties.length < before;
  }

  addGroup(group: CustomGroup) {
    this.groups.push(group);
    this.changed();
  }

  /** How many custom properties of one object a portal may have (HubSpot: 1,000 on most plans). */
  propertyLimit(hubId: number) {
    return this.propertyLimits.get(hubId) ?? 1000;
  }

  addCommunication(hubId: number, properties: Record<string, string>, contactIds: string[]): Communication {
    const at = this.now();
    const communication: Communication = {
      id: this.newId(),
      hubId,
      properties: { ...properties },
      contactIds,
      createdAt: at,
      updatedAt: at,
    };
    this.communications.set(communication.id, communication);
    this.changed();
    return communication;
  }

  /** Archives a communication: gone from reads and searches (HubSpot keeps it 90 days to restore; the sandbox does not). */
  deleteCommunication(communication: Communication) {
    this.communications.delete(communication.id);
    this.changed();
  }

  /**
   * A GDPR delete: the contact gone for good, with its associations (HubSpot: "Permanently delete a
   * contact and all associated content"); communications associated with it lose the association.
   */
  eraseContact(contact: Contact) {
    this.deleteContact(contact);
    for (const c of this.communicationsOf(contact.hubId)) c.contactIds = c.contactIds.filter((id) => id !== contact.id);
    this.changed();
  }

  communicationsOf(hubId: number): Communication[] {
    return [...this.communications.values()].filter((c) => c.hubId === hubId);
  }

  listsOf(hubId: number): ContactList[] {
    return [...this.lists.values()].filter((l) => l.hubId === hubId);
  }

  addList(hubId: number, name: string, contactIds: string[], processingType: ContactList["processingType"] = "MANUAL"): ContactList {
    const at = this.now();
    const list: ContactList = { listId: this.newId(), hubId, name, processingType, createdAt: at, updatedAt: at, members: [] };
    this.lists.set(list.listId, list);
    this.addMembers(list, contactIds);
    return list;
  }

  addMembers(list: ContactList, contactIds: string[]) {
    const at = this.now();
    for (const id of contactIds) if (!list.members.some((m) => m.recordId === id)) list.members.push({ recordId: id, addedAt: at });
    list.updatedAt = at;
    this.changed();
  }

  /** Back to the seeded portals; every token is forgotten. */
  reset() {
    this.portals.clear();
    this.contacts.clear();
    this.communications.clear();
    this.lists.clear();
    this.properties = [];
    this.groups = [];
    this.propertyLimits.clear();
    this.grants.reset();
    this.nextId = 1001;
    this.seed();
  }

  private seed() {
    for (const portal of SEED_PORTALS) this.portals.set(portal.hubId, { ...portal });
    const [duka] = SEED_PORTALS;
    const ids = SEED_CONTACTS.map((properties) => this.addContact(duka!.hubId, properties).id);
    this.addList(duka!.hubId, "VIP customers", ids.slice(0, 3));
    this.changed();
  }

  private snapshot(): Saved {
    return {
      version: 1,
      nextId: this.nextId,
      portals: [...this.portals.values()],
      contacts: [...this.contacts.values()],
      communications: [...this.communications.values()],
      lists: [...this.lists.values()],
      grants: this.grants.snapshot(),
      properties: this.properties,
      groups: this.groups,
      propertyLimits: Object.fromEntries([...this.propertyLimits].map(([k, v]) => [String(k), v])),
    };
  }

  private restore(saved: Saved) {
    this.nextId = saved.nextId;
    for (const p of saved.portals) this.portals.set(p.hubId, p);
    for (const c of saved.contacts ?? []) this.contacts.set(c.id, c);
    for (const c of saved.communications ?? []) this.communications.set(c.id, c);
    for (const l of saved.lists ?? []) this.lists.set(l.listId, l);
    this.properties = saved.properties ?? [];
    this.groups = saved.groups ?? [];
    for (const [k, v] of Object.entries(saved.propertyLimits ?? {})) this.propertyLimits.set(Number(k), v);
    this.grants.restore(saved.grants);
  }
}

function withoutEmpty(properties: Record<string, string>) {
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== ""));
}
