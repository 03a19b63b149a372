/**
 * Addresses a team copies into another service's dashboard (M-Pesa's callback URLs, Africa's
 * Talking's): each named, shown whole and breaking anywhere, so a long one fits a 360 px phone.
 */
export function AddressList({
  addresses,
  className = "space-y-1",
}: {
  addresses: readonly (readonly [string, string])[];
  className?: string;
}) {
  return (
    <dl className={className}>
      {addresses.map(([name, url]) => (
        <div key={name}>
          <dt className="text-slate-600">{name}</dt>
          <dd>
            <code className="break-all">{url}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
