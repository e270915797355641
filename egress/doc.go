// Package egress is kobako's outbound HTTP: the policy and client behind ABI 1's
// `subako_http` and `wasi:http`. Every request a plugin makes goes through Client.Do
// under a per-invocation Policy, and every refusal is an *Error whose Kind is one of the
// thirteen ABI 1 error kinds, so the host can answer the guest 1:1.
//
// The package is public because embedders configure it: a program builds a Policy with
// NewPolicy (which hosts a call may reach, which credentials the host injects for which origins)
// and hands it to one call, for example through subako.CallOptions.Network; a custom Client
// (root certificates, timeouts, size caps) goes in subako.Config.HTTPClient.
//
// The rules, each with the Kind it fails with:
//
//   - Methods GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS only (InvalidRequest).
//   - https only: plain http is ForbiddenDestination unless PolicyConfig.AllowHTTPHosts names
//     the host (never with credentials), any other scheme InvalidRequest. No user
//     info in URLs; hosts are strict (see PolicyConfig.AllowHosts); "localhost" names refused.
//   - The host must match the policy's allowlist (HostNotAllowed). The allowlist syntax, exact
//     names, "*.example.com" wildcards, IP literals, "*", optional ":port", is documented on
//     PolicyConfig.AllowHosts.
//   - The destination address must not be in a refused range: loopback, private, CGNAT,
//     link-local, multicast, unspecified, documentation, benchmarking, ULA, and every other
//     IANA special-purpose range, IPv4-mapped and NAT64 forms judged by the IPv4 address
//     they carry, IPv6 outside 2000::/3 (ForbiddenDestination). RefusedRanges lists them with
//     references. The check runs on what is actually dialled: the dialler resolves the name
//     itself, refuses the whole name if any address is refused, dials only checked IPs, and
//     the net.Dialer Control hook checks the socket address once more before connect(2).
//     A redirect is a new dial, so DNS rebinding and redirects to internal addresses are
//     caught the same way. No proxy is ever used.
//   - Redirects (301, 302, 303, 307, 308) are followed up to MaxRedirects hops unless the
//     request disables them (TooManyRedirects); each hop passes the URL rules again.
//   - Header names are lower-case tokens (InvalidRequest otherwise); connection headers
//     (host, content-length, connection, transfer-encoding, upgrade, keep-alive, te, trailer,
//     proxy-*) are removed.
//   - Credentials: for an origin (scheme, host, port) that a Grant lists, the host injects the
//     credential's header fields. A guest that sets one of those fields itself fails with
//     CredentialHeader; a granted origin without exactly one usable credential fails with
//     CredentialUnavailable instead of going out unauthenticated. Credentials never cross
//     origins: injection is per hop, for that hop's origin, and once a redirect leaves the
//     original origin the guest's authorization, cookie and granted-header fields are
//     dropped.
//   - Time: Request.Timeout can shorten the caller's context deadline, never extend it, and
//     Options.MaxTimeout bounds every request (Timeout).
//   - Size: the response body is capped by Request.MaxResponseBytes while streaming, so a
//     body without Content-Length cannot exceed it either (TooLarge); Response.Text adds the
//     UTF-8 check of ABI 1 inline output (NotText). Request headers, URLs and response
//     headers are bounded too.
//   - Anything else that goes wrong on the network is Connection.
//
// Each *Error also carries a Reason, one level finer than its Kind (plain http and a refused
// address are both ForbiddenDestination; ReasonPlainHTTP and ReasonAddress tell them apart), so
// that embedders and protocol hosts switch on ReasonOf instead of reading messages.
//
// Sender is the one hook both plugin protocols send through (subako.CallOptions.Send,
// preview2.HTTPConfig.Send); NewSender is its default, this package's policy over a Client, and
// Deny is how a Sender an embedder writes vetoes a request.
//
// Options.AllowPrivate lifts the address rules (and the "localhost" refusal) for an embedder that
// grants a plugin its local network on purpose; the allowlist still applies. Request.Trailer and
// Response.Trailer carry trailer fields both ways (wasi:http passes them through).
//
// The default Client (NewClient(Options{})) cannot reach loopback. Tests reach an
// httptest.NewTLSServer through Options.UnsafeAllowAddrs or Options.UnsafeDialIP, which exist
// for tests only and are named so that their use stands out in review.
//
// Standard library only.
package egress
