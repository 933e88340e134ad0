/**
 * The service-provider interface of composite balancers: {@link
 * dev.ballast.core.composite.ChildBalancer}, what label subsets and priorities and localities
 * need from the balancers they hold.
 */
package dev.ballast.core.composite;
