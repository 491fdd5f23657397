/**
 * An amount in a token's smallest unit as whole units (`"10000"`, 6 decimals → `"0.01"`): integer
 * arithmetic, trailing zeros dropped, never rounded. Throws on anything but a decimal integer string.
 */
export function formatAmount(amount: string, decimals: number): string {
  if (!/^\d+$/.test(amount)) throw new Error(`not an amount in smallest units: ${JSON.stringify(amount)}`);
  const digits = amount.replace(/^0+(?=\d)/, "").padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}
