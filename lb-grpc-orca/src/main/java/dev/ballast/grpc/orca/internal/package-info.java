/** The engine of lb-grpc-orca; not API. */
package dev.ballast.grpc.orca.internal;
