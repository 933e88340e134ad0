package dev.ballast.grpc.internal;

/** Whether an optional dependency of lb-grpc (grpc-services, grpc-util, Micrometer) is there. */
final class ClassPresence {

  private ClassPresence() {}

  /** Returns whether a class can be loaded, without initializing it. */
  static boolean present(String className) {
    try {
      Class.forName(className, false, ClassPresence.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
