import type { ReactElement, SVGProps } from "react";
// The sprite: one cached file of <symbol>s, made from lucide's icons by `npm run icons`
// (scripts/icons.mjs) from the list below; vite.config.ts keeps it a file (<use> cannot point into a data: URL).
import sprite from "~/assets/icons.svg?url";

export type IconProps = Omit<SVGProps<SVGSVGElement>, "children"> & { size?: number | string };
export type IconComponent = (props: IconProps) => ReactElement;

/**
 * An icon drawn from the sprite: `<svg><use href="/assets/icons-….svg#name"/></svg>`, about 110
 * bytes and two elements where an inline lucide icon is 250-600 bytes and 3-8 elements, built anew
 * on every render. The symbols carry lucide's stroke settings; the colour is the text colour.
 * Decorative unless it is given an accessible name (aria-label, aria-labelledby or role).
 */
export function icon(id: string): IconComponent {
  const href = `${sprite}#${id}`;
  function Icon({ size = 24, className, ...rest }: IconProps) {
    const named = rest["aria-label"] != null || rest["aria-labelledby"] != null || rest.role != null;
    return (
      <svg
        width={size}
        height={size}
        className={className}
        role={named && rest.role == null ? "img" : undefined}
        {...rest}
        aria-hidden={named ? undefined : true}
      >
        <use href={href} />
      </svg>
    );
  }
  Icon.displayName = `Icon(${id})`;
  return Icon;
}

// One line an icon: `npm run icons` rebuilds app/assets/icons.svg from these (the name is lucide's
// export, the id the symbol's); icons.test.ts fails while the sprite and this list disagree.
export const Activity = icon("activity");
export const AlertCircle = icon("alert-circle");
export const AlertTriangle = icon("alert-triangle");
export const ArrowDown = icon("arrow-down");
export const ArrowLeft = icon("arrow-left");
export const ArrowRight = icon("arrow-right");
export const ArrowUp = icon("arrow-up");
export const ArrowUpDown = icon("arrow-up-down");
export const BarChart3 = icon("bar-chart-3");
export const Bell = icon("bell");
export const Bot = icon("bot");
export const Building2 = icon("building-2");
export const CalendarClock = icon("calendar-clock");
export const Check = icon("check");
export const CheckCheck = icon("check-check");
export const CheckCircle2 = icon("check-circle-2");
export const ChevronDown = icon("chevron-down");
export const ChevronLeft = icon("chevron-left");
export const ChevronRight = icon("chevron-right");
export const Circle = icon("circle");
export const Clock = icon("clock");
export const Copy = icon("copy");
export const CreditCard = icon("credit-card");
export const Download = icon("download");
export const ExternalLink = icon("external-link");
export const Eye = icon("eye");
export const EyeOff = icon("eye-off");
export const FileText = icon("file-text");
export const Gauge = icon("gauge");
export const GitMerge = icon("git-merge");
export const Globe2 = icon("globe-2");
export const Hourglass = icon("hourglass");
export const Image = icon("image");
export const Info = icon("info");
export const KeyRound = icon("key-round");
export const Landmark = icon("landmark");
export const LayoutDashboard = icon("layout-dashboard");
export const Lightbulb = icon("lightbulb");
export const LoaderCircle = icon("loader-circle");
export const Lock = icon("lock");
export const LogOut = icon("log-out");
export const Mail = icon("mail");
export const MapPin = icon("map-pin");
export const Megaphone = icon("megaphone");
export const Menu = icon("menu");
export const MessageCircle = icon("message-circle");
export const MessageSquare = icon("message-square");
export const Monitor = icon("monitor");
export const PanelLeftClose = icon("panel-left-close");
export const PanelLeftOpen = icon("panel-left-open");
export const Paperclip = icon("paperclip");
export const Pause = icon("pause");
export const Pencil = icon("pencil");
export const Phone = icon("phone");
export const Play = icon("play");
export const Plus = icon("plus");
export const Power = icon("power");
export const PowerOff = icon("power-off");
export const RefreshCw = icon("refresh-cw");
export const Reply = icon("reply");
export const Rocket = icon("rocket");
export const Save = icon("save");
export const Search = icon("search");
export const Send = icon("send");
export const SendHorizontal = icon("send-horizontal");
export const Settings = icon("settings");
export const ShoppingBag = icon("shopping-bag");
export const ShieldAlert = icon("shield-alert");
export const ShieldCheck = icon("shield-check");
export const Smartphone = icon("smartphone");
export const Tablet = icon("tablet");
export const Tag = icon("tag");
export const Timer = icon("timer");
export const Trash2 = icon("trash-2");
export const Upload = icon("upload");
export const User = icon("user");
export const UserCircle2 = icon("user-circle-2");
export const UserPlus = icon("user-plus");
export const UserX = icon("user-x");
export const Users = icon("users");
export const Wallet = icon("wallet");
export const X = icon("x");
export const XCircle = icon("xcircle");
export const Zap = icon("zap");
