package io.github.kvroute.testkit;

import io.github.kvroute.api.AdmissionController;
import io.github.kvroute.core.Admission;

/** The shipped admission contract over the router's default controller. */
class StandardAdmissionContractTest extends AdmissionControllerContract {
  @Override
  protected AdmissionController admissionController() {
    return Admission.standard();
  }
}
