// Types for the two pinned clients that ship none (mpesa-node 0.1.3, paystack-api 2.0.6), written
// from their sources for the calls the fidelity suite makes; no `any` reaches the tests.

declare module "mpesa-node" {
  import type { AxiosInstance, AxiosResponse } from "axios";

  /** Daraja's answers as mpesa-node hands them on: axios 0.18 responses, the JSON as `data`. */
  type Answer = Promise<AxiosResponse<Record<string, unknown>>>;

  interface MpesaConfig {
    consumerKey: string;
    consumerSecret: string;
    /** "production" → https://api.safaricom.co.ke, anything else → https://sandbox.safaricom.co.ke. */
    environment?: "sandbox" | "production";
    shortCode?: string;
    initiatorName?: string;
    lipaNaMpesaShortCode?: string;
    lipaNaMpesaShortPass?: string;
    /** The initiator's password, encrypted with the certificate at certPath (SecurityCredential). */
    securityCredential?: string;
    certPath?: string;
  }

  class Mpesa {
    constructor(config: MpesaConfig);
    /** Set by the constructor from `environment`; every call reads it. */
    baseURL: string;
    enviroment: "sandbox" | "production";
    oAuth(): Answer;
    /** An axios instance on baseURL with a fresh Bearer token (what every call posts with). */
    request(baseURL?: string | null): Promise<AxiosInstance>;
    lipaNaMpesaOnline(
      senderMsisdn: number | string,
      amount: number,
      callbackUrl: string,
      accountRef: string,
      transactionDesc?: string,
      transactionType?: string,
      shortCode?: string | null,
      passKey?: string | null,
    ): Answer;
    lipaNaMpesaQuery(checkoutRequestId: string, shortCode?: string | null, passKey?: string | null): Answer;
    c2bRegister(confirmationUrl: string, validationUrl: string, shortCode?: string | null, responseType?: string): Answer;
    c2bSimulate(msisdn: number | string, amount: number, billRefNumber: string, commandId?: string, shortCode?: string | null): Answer;
    b2c(
      senderParty: number | string,
      receiverParty: number | string,
      amount: number,
      queueUrl: string,
      resultUrl: string,
      commandId?: string,
      initiatorName?: string | null,
      remarks?: string,
      occasion?: string,
    ): Answer;
    transactionStatus(
      transactionId: string,
      receiverParty: number | string,
      idType: number | string,
      queueUrl: string,
      resultUrl: string,
      remarks?: string,
      occasion?: string,
      initiator?: string | null,
      commandId?: string,
    ): Answer;
  }
  export default Mpesa;
}

declare module "paystack-api" {
  /** Paystack's envelope as request-promise resolves it (`json: true`). */
  interface Envelope {
    status: boolean;
    message: string;
    data: Record<string, unknown>;
  }

  interface Paystack {
    /** "https://api.paystack.co", set by the constructor; every call reads it. */
    endpoint: string;
    key: string;
    transaction: {
      initialize(params: {
        email: string;
        amount: number;
        reference?: string;
        currency?: string;
        callback_url?: string;
        /** Passed on in the body as given (the library sends every field; it checks only email and amount). */
        channels?: string[];
        metadata?: unknown;
      }): Promise<Envelope>;
      verify(params: { reference: string }): Promise<Envelope>;
    };
    Events: {
      /** Express-style: answers 200, then emits the event if the HMAC-SHA512 of JSON.stringify(req.body) matches. */
      middleware(req: { body: unknown; headers: Record<string, string | undefined> }, res: { sendStatus(status: number): unknown }): void;
      on(event: string, handler: (data: Record<string, unknown>) => void): void;
      off(event: string, handler: (data: Record<string, unknown>) => void): void;
    };
  }

  function createPaystack(key: string): Paystack;
  export default createPaystack;
}

// africastalking 0.8.3 ships no types: the calls the fidelity suite makes, written from its lib/.
declare module "africastalking" {
  interface SmsRecipient {
    statusCode: number;
    number: string;
    status: string;
    cost: string;
    messageId: string;
  }
  interface SendAnswer {
    SMSMessageData: { Message: string; Recipients: SmsRecipient[] };
  }
  interface FetchAnswer {
    SMSMessageData: { Messages: { linkId: string; text: string; to: string; id: number; date: string; from: string }[] };
  }
  interface Sms {
    /** Validates every number with libphonenumber first; joins an array with commas; POSTs form fields to `SMS_URL`. */
    send(params: { to: string | string[]; message: string; from?: string; enqueue?: boolean }): Promise<SendAnswer>;
    fetchMessages(params: { lastReceivedId?: number; keyword?: string; shortCode?: string }): Promise<FetchAnswer>;
  }
  interface AfricasTalking {
    SMS: Sms;
  }
  /** The module's export: a function (called with or without `new`) answering the service objects. */
  function createAfricastalking(options: { username: string; apiKey: string; format?: "json" | "xml" }): AfricasTalking;
  export default createAfricastalking;
}

declare module "africastalking/lib/common.js" {
  /** Module-level URLs every SMS call reads at call time (`enableSandbox()` rewrites them for the whole process). */
  const common: { SMS_URL: string; USER_URL: string; BASE_URL: string; CONTENT_URL: string; enableSandbox(): void };
  export default common;
}
