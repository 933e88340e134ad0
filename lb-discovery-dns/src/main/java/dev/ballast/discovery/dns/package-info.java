/**
 * Endpoints from DNS: {@link dev.ballast.discovery.dns.DnsSource} re-resolves a name (A/AAAA
 * with a fixed port, or SRV for ports and weights) periodically and early after connection
 * failures, with Netty's asynchronous resolver. Targets {@code ballast-dns:///name:port} and
 * {@code ballast-dns:///_service._tcp.name}.
 *
 * <p>Arguments and return values are non-null unless a method says otherwise.
 */
package dev.ballast.discovery.dns;
