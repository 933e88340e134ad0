/** The xDS source's engine. Not API. */
package dev.ballast.discovery.xds.internal;
