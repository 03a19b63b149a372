/** The six boxes post six `otp` values; joins them into one field so one schema reads every form. */
export function joinOtpBoxes(formData: FormData) {
  const joined = new FormData();
  for (const [key, value] of formData.entries()) if (key !== "otp") joined.append(key, value);
  joined.set("otp", formData.getAll("otp").map(String).join(""));
  return joined;
}
