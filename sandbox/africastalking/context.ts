import type { CallbackSender } from "./callbacks";
import type { SmsState } from "./state";

export interface ResolvedOptions {
  publicPath: string;
  /** Price of one part, in ten-thousandths of a shilling. */
  pricePerPart: number;
  /** "sandbox": every report carries 99999, as AT's sandbox; "kenya": the number's network. */
  networkCodes: "sandbox" | "kenya";
  now: () => number;
  /** How long a send to the magic slow number waits before it answers (magic.ts). */
  slowAnswerMs: number;
}

export interface AfricastalkingContext {
  options: ResolvedOptions;
  state: SmsState;
  sender: CallbackSender;
}
