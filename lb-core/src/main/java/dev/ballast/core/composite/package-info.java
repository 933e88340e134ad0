/**
 * Deprecated: composite balancers' service-provider interface moved to {@link
 * dev.ballast.core.ChildBalancer}; this package keeps an alias for one version.
 */
package dev.ballast.core.composite;
