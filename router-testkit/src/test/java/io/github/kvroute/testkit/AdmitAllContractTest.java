package io.github.kvroute.testkit;

import io.github.kvroute.api.AdmissionController;

/** The shipped admission contract over {@link AdmissionController#admitAll()}. */
class AdmitAllContractTest extends AdmissionControllerContract {
  @Override
  protected AdmissionController admissionController() {
    return AdmissionController.admitAll();
  }
}
