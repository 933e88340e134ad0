/** Implementation details of the Spring Boot starter; not API, may change at any time. */
package dev.ballast.spring.internal;
