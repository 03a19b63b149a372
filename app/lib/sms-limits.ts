/** Settings → SMS's limits, without zod: the page imports them from here. */
export const SMS_KEY_MAX = 200;
