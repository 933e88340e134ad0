package dev.ballast.core.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The syntax of an endpoint's host, and its canonical form: a host name or IPv4 literal of
 * ASCII letters, digits, '.', '-' and '_' (RFC 1123, plus the '_' of service names), lower-cased
 * since host names are case-insensitive (RFC 4343), so {@code LOCALHOST} and {@code localhost}
 * are one endpoint; or an IPv6 literal (RFC 4291 section 2.2: eight groups of 1-4 hex digits,
 * one {@code ::} standing for one or more zero groups, an IPv4 tail counting as two groups), its
 * hex digits lower-cased (RFC 5952 section 4.3) and an optional {@code %zone} kept as written.
 */
public final class HostSyntax {

  private HostSyntax() {}

  /**
   * Returns the canonical form of a host.
   *
   * @param context appended to error messages, e.g. {@code in "h:80"}
   * @throws IllegalArgumentException naming the host and the bad part
   */
  public static String canonical(String host, String context) {
    if (host.isEmpty()) {
      throw new IllegalArgumentException("host: empty (expected: a name or an IP)" + context);
    }
    if (host.indexOf(':') >= 0) {
      return ipv6(host, context);
    }
    for (int i = 0; i < host.length(); i++) {
      char c = host.charAt(i);
      if (!(ascii(c) || c == '.' || c == '-' || c == '_')) {
        throw new IllegalArgumentException("host: " + host + " (unexpected character '" + c
            + "'; expected ASCII letters, digits, '.', '-', '_', or an IPv6 literal)" + context);
      }
    }
    return host.toLowerCase(Locale.ROOT);
  }

  private static String ipv6(String host, String context) {
    int percent = host.indexOf('%');
    String address = percent < 0 ? host : host.substring(0, percent);
    String zone = percent < 0 ? "" : host.substring(percent);
    for (int i = 1; i < zone.length(); i++) {
      char c = zone.charAt(i);
      if (!(ascii(c) || c == '.' || c == '-' || c == '_')) {
        throw bad(host, "zone with character '" + c + "'", context);
      }
    }
    if (zone.length() == 1) {
      throw bad(host, "empty zone after '%'", context);
    }
    int doubleColon = address.indexOf("::");
    int groups;
    if (doubleColon < 0) {
      groups = groups(host, address, true, context);
      if (groups != 8) {
        throw bad(host, groups + " groups without '::'", context);
      }
    } else {
      if (address.indexOf("::", doubleColon + 1) >= 0) {
        throw bad(host, "'::' more than once", context);
      }
      groups = groups(host, address.substring(0, doubleColon), false, context)
          + groups(host, address.substring(doubleColon + 2), true, context);
      if (groups > 7) {
        throw bad(host, groups + " groups beside '::'", context);
      }
    }
    return address.toLowerCase(Locale.ROOT) + zone;
  }

  /** Counts the groups of a run without '::' (empty: none); an IPv4 tail counts as two. */
  private static int groups(String host, String run, boolean last, String context) {
    if (run.isEmpty()) {
      return 0;
    }
    String[] parts = run.split(":", -1);
    int groups = 0;
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (last && i == parts.length - 1 && part.indexOf('.') >= 0) {
        checkIpv4(host, part, context);
        groups += 2;
        continue;
      }
      if (part.isEmpty() || part.length() > 4) {
        throw bad(host, "group '" + part + "' (1-4 hex digits each)", context);
      }
      for (int j = 0; j < part.length(); j++) {
        char c = part.charAt(j);
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
          throw bad(host, "group '" + part + "' with '" + c + "'", context);
        }
      }
      groups++;
    }
    return groups;
  }

  private static void checkIpv4(String host, String tail, String context) {
    String[] octets = tail.split("\\.", -1);
    if (octets.length != 4) {
      throw bad(host, "IPv4 tail " + tail, context);
    }
    for (String o : octets) {
      if (o.isEmpty() || o.length() > 3) {
        throw bad(host, "IPv4 tail " + tail, context);
      }
      int v = 0;
      for (int i = 0; i < o.length(); i++) {
        char c = o.charAt(i);
        if (c < '0' || c > '9') {
          throw bad(host, "IPv4 tail " + tail, context);
        }
        v = v * 10 + (c - '0');
      }
      if (v > 255) {
        throw bad(host, "IPv4 tail " + tail, context);
      }
    }
  }

  private static IllegalArgumentException bad(String host, String what, String context) {
    return new IllegalArgumentException("host: " + host + " (" + what
        + "; expected: an IPv6 address, e.g. ::1 or fe80::1%eth0)" + context);
  }

  private static boolean ascii(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  /**
   * The socket address gRPC-java would hold for a host and port, without any DNS look-up: an IP
   * literal's {@link InetSocketAddress}, else an unresolved one (ring hash's default addresses).
   */
  public static List<SocketAddress> socketAddresses(String host, int port) {
    if (host.indexOf(':') >= 0 || IPV4.matcher(host).matches()) {
      try {
        // a literal: checked for its format, never looked up
        return List.of(new InetSocketAddress(InetAddress.getByName(host), port));
      } catch (UnknownHostException malformed) {
        // not a literal after all (e.g. 999.1.1.1): named as unresolved, below
      }
    }
    return List.of(InetSocketAddress.createUnresolved(host, port));
  }
}
