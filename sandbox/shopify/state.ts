import { OAuthGrants, type GrantsSnapshot } from "../oauth-grants";
import { StateFile } from "../state-file";

export interface Shop {
  id: number;
  /** `duka-bora.myshopify.com` */
  domain: string;
  name: string;
  email: string;
  /** The shop's currency (GraphQL `shop.currencyCode`); KES unless a test sets another. */
  currency?: string;
}

export interface Subscription {
  id: number;
  shop: string;
  clientId: string;
  topic: string;
  address: string;
  format: "json";
  apiVersion: string;
  createdAt: number;
  updatedAt: number;
}

export interface Person {
  first_name?: string;
  last_name?: string;
  phone?: string | null;
  email?: string | null;
}

export interface Address extends Person {
  address1?: string;
  city?: string;
  country?: string;
  country_code?: string;
}

export interface LineItem {
  title: string;
  quantity: number;
  /** Shopify's money: a decimal string ("1250.00"). */
  price: string;
}

export interface Order {
  id: number;
  shop: string;
  number: number;
  email: string | null;
  phone: string | null;
  customer: (Person & { id: number }) | null;
  shippingAddress: Address | null;
  billingAddress: Address | null;
  lineItems: LineItem[];
  createdAt: number;
  updatedAt: number;
  fulfillments: Fulfillment[];
  /**
   * pending: a manual payment (cash on delivery, a bank deposit) not yet received; paid. Absent in
   * states saved before it: paid, as every order was then.
   */
  financialStatus?: "pending" | "paid";
  /** The sale transactions recorded on it (orderMarkAsPaid records one for the outstanding amount). */
  transactions?: { kind: "sale"; gateway: "manual"; amount: string; createdAt: number }[];
}

/** An order's financial status (paid unless it was made pending). */
export const financialStatusOf = (order: Order) => order.financialStatus ?? "paid";

export interface Fulfillment {
  id: number;
  orderId: number;
  sequence: number;
  trackingCompany: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  shipmentStatus: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Variant {
  id: number;
  title: string;
  sku: string | null;
  /** Shopify's money: a decimal string in the shop's currency. */
  price: string;
  inventoryQuantity: number;
  imageUrl: string | null;
}

/** A product of the shop's catalogue, with its variants (GraphQL `products`, webhooks products/*). */
export interface Product {
  id: number;
  shop: string;
  title: string;
  description: string;
  status: "active" | "draft" | "archived";
  imageUrl: string | null;
  variants: Variant[];
  createdAt: number;
  updatedAt: number;
}

export interface Checkout {
  id: number;
  token: string;
  shop: string;
  email: string | null;
  phone: string | null;
  customer: (Person & { id: number }) | null;
  shippingAddress: Address | null;
  billingAddress: Address | null;
  lineItems: LineItem[];
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

interface Saved {
  version: 1;
  nextId: number;
  shops: Shop[];
  subscriptions: Subscription[];
  orders: Order[];
  checkouts: Checkout[];
  products?: Product[];
  grants: GrantsSnapshot;
}

const isSaved = (value: unknown): value is Saved =>
  typeof value === "object" && value !== null && (value as Saved).version === 1 && Array.isArray((value as Saved).shops);

export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/;
/** Shops made on first use stop here: the install page is open to anyone on a demo host. */
const MAX_SHOPS = 500;

const SEED_SHOPS = [
  { domain: "duka-bora.myshopify.com", name: "Duka Bora", email: "owner@dukabora.co.ke" },
  { domain: "pwani-crafts.myshopify.com", name: "Pwani Crafts", email: "hello@pwanicrafts.co.ke" },
];

/** Everything the Shopify sandbox keeps: test shops, installs (tokens), webhook subscriptions, orders and checkouts. */
export class ShopifyState {
  shops = new Map<string, Shop>();
  subscriptions = new Map<number, Subscription>();
  orders = new Map<number, Order>();
  checkouts = new Map<string, Checkout>();
  products = new Map<number, Product>();
  private nextId = 5_100_000_001;
  private readonly file: StateFile<Saved>;

  constructor(
    readonly grants: OAuthGrants,
    private readonly now: () => number,
    statePath: string | undefined,
  ) {
    this.file = new StateFile(statePath, "shopify", () => this.snapshot());
    const saved = this.file.load(isSaved);
    if (saved) this.restore(saved);
    else this.seed();
  }

  newId() {
    return this.nextId++;
  }

  changed() {
    this.file.changed();
  }

  close() {
    this.file.close();
  }

  /** A test shop by its domain; any `<name>.myshopify.com` is one (made on first use). */
  shop(domain: string): Shop | undefined {
    const existing = this.shops.get(domain);
    if (existing || !SHOP_DOMAIN.test(domain) || this.shops.size >= MAX_SHOPS) return existing;
    const name = domain.replace(/\.myshopify\.com$/, "");
    const shop = {
      id: this.newId(),
      domain,
      name: name.replace(/-/g, " ").replace(/\b\w/g, (c) => c.toUpperCase()),
      email: `owner@${name}.test`,
    };
    this.shops.set(domain, shop);
    this.changed();
    return shop;
  }

  subscriptionsOf(shop: string, clientId?: string) {
    return [...this.subscriptions.values()].filter((s) => s.shop === shop && (clientId === undefined || s.clientId === clientId));
  }

  /** The shop's products in id order (the order `products` pages them in). */
  productsOf(shop: string) {
    return [...this.products.values()].filter((p) => p.shop === shop).sort((a, b) => a.id - b.id);
  }

  ordersOf(shop: string) {
    return [...this.orders.values()].filter((o) => o.shop === shop);
  }

  nextOrderNumber(shop: string) {
    return 1001 + this.ordersOf(shop).length;
  }

  findFulfillment(id: number): { order: Order; fulfillment: Fulfillment } | undefined {
    for (const order of this.orders.values()) {
      const fulfillment = order.fulfillments.find((f) => f.id === id);
      if (fulfillment) return { order, fulfillment };
    }
    return undefined;
  }

  reset() {
    this.shops.clear();
    this.subscriptions.clear();
    this.orders.clear();
    this.checkouts.clear();
    this.products.clear();
    this.grants.reset();
    this.seed();
  }

  private seed() {
    for (const shop of SEED_SHOPS) this.shops.set(shop.domain, { id: this.newId(), ...shop });
    this.changed();
  }

  private snapshot(): Saved {
    return {
      version: 1,
      nextId: this.nextId,
      shops: [...this.shops.values()],
      subscriptions: [...this.subscriptions.values()],
      orders: [...this.orders.values()],
      checkouts: [...this.checkouts.values()],
      products: [...this.products.values()],
      grants: this.grants.snapshot(),
    };
  }

  private restore(saved: Saved) {
    this.nextId = saved.nextId;
    for (const s of saved.shops) this.shops.set(s.domain, s);
    for (const s of saved.subscriptions ?? []) this.subscriptions.set(s.id, s);
    for (const o of saved.orders ?? []) this.orders.set(o.id, o);
    for (const c of saved.checkouts ?? []) this.checkouts.set(c.token, c);
    for (const p of saved.products ?? []) this.products.set(p.id, p);
    this.grants.restore(saved.grants);
  }
}
