import { describe, expect, it } from "vitest";
import { parameterValue } from "./variables";

describe("a placeholder's value", () => {
  const fields = (name: string | null) => ({ name, phone: "+254712345678", attributes: null });
  const firstName = { field: "first_name", fallback: "Mteja" };

  it("greets by the first name, and by the fallback when there is none", () => {
    expect(parameterValue(firstName, fields("Amina Wanjiku"))).toBe("Amina");
    expect(parameterValue(firstName, fields(null))).toBe("Mteja");
    expect(parameterValue(firstName, fields("  "))).toBe("Mteja");
  });

  it("takes a contact named only by their number as unnamed (an SMS's new contact)", () => {
    expect(parameterValue(firstName, fields("+254712345678"))).toBe("Mteja");
    expect(parameterValue({ field: "name", fallback: "Mteja" }, fields("0712 345 678"))).toBe("Mteja");
    expect(parameterValue({ field: "name", fallback: "" }, fields("+254712345678"))).toBe("");
    // A name with a digit in it is still a name.
    expect(parameterValue(firstName, fields("Duka 24"))).toBe("Duka");
    expect(parameterValue({ field: "phone", fallback: "" }, fields("+254712345678"))).toBe("+254712345678");
  });
});
